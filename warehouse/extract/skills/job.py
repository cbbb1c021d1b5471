"""Skills extractor: SKILL.md folders from every skill root -> lake tables `skills`, `skill_resources`.

Identity (deterministic, stable across runs):
- unit      = "<root_kind>:<root path>:<rel_dir>" (rel_dir = skill folder relative to the root; for a
              tombstoned AutoClaw skill whose folder is gone, its skillId);
- skill_id  = "skill:<root_kind>:<name>" + ":<workspace_id>" for workspace roots / ":<account>" for
              AutoClaw, name = front-matter `name` or the folder name. If an earlier root (binding order,
              see skills_roots) already produced that id, ":<sha1(folder)[:8]>" is appended.
Revision (cursor) = sha256 over the id, SKILL.md bytes, the resources' (rel_path, size, mtime_ns) and
the AutoClaw ledger/tombstone/bundle entry; an unchanged skill costs one stat walk and no write.
A SKILL.md that cannot be parsed is a KNOWLEDGE_SOURCE_CORRUPT error (unreadable: _UNAVAILABLE) for that
skill only, and the skill keeps its last good rows, as broken sessions and databases do. A SKILL.md linked
out of its root is skipped with a reason and never read. Resource bytes are hashed, never stored.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import polars as pl

from warehouse.core.errors import Code
from warehouse.core.source_roots import root_states
from warehouse.extract.base import ExtractContext, SourceReport, inside, redaction_sig, skipped
from warehouse.extract.skills.autoclaw_ledger import AutoclawExtras, read_extras
from warehouse.extract.skills.files import ResourceStat, hash_resource, stat_resources
from warehouse.extract.skills.parse import ParsedSkill, SkillParseError, missing_references, parse_skill_md
from warehouse.extract.skills.roots import SKILL_FILE, Root, discover_roots, root_error, skill_dirs
from warehouse.home.lake import unit_key

SOURCE = "skills"
CURSOR_VERSION = 1

SKILLS_SCHEMA: dict[str, pl.DataType] = {
    "skill_id": pl.String(), "name": pl.String(), "root_kind": pl.String(), "root_path": pl.String(),
    "workspace_id": pl.String(), "account": pl.String(), "path": pl.String(), "rel_dir": pl.String(),
    "description": pl.String(), "when_to_use": pl.String(), "metadata_json": pl.String(),
    "frontmatter_json": pl.String(), "disable_model_invocation": pl.Boolean(), "user_invocable": pl.Boolean(),
    "license": pl.String(), "allowed_tools": pl.List(pl.String()), "body": pl.String(),
    "content_hash": pl.String(), "size": pl.Int64(), "status": pl.String(), "removed_at": pl.String(),
    "version": pl.String(), "ledger_sha256": pl.String(), "ledger_matches": pl.Boolean(),
    "deployed_at": pl.String(), "bundles": pl.List(pl.String()), "referenced_missing": pl.List(pl.String()),
    "revision": pl.String(),
}
RESOURCES_SCHEMA: dict[str, pl.DataType] = {
    "skill_id": pl.String(), "rel_path": pl.String(), "size": pl.Int64(), "sha256": pl.String(),
    "is_binary": pl.Boolean(),
}
TABLES = {"skills": SKILLS_SCHEMA, "skill_resources": RESOURCES_SCHEMA}


def extract(ctx: ExtractContext) -> SourceReport:
    report = SourceReport(source=SOURCE)
    for table, schema in TABLES.items():
        ctx.lake.ensure_table(SOURCE, table, schema)
    seen: set[str] = set()
    taken: set[str] = set()
    roots, registry_ok = discover_roots(ctx, report)
    if not registry_ok:  # workspace roots are unknown, not gone: keep their skills
        seen |= {u for u in ctx.store.known_units() if u.startswith("workspace_")}
    if root_states(ctx.paths, ctx.settings)["autoclaw"].state == "unavailable":  # gone, not emptied
        seen |= {u for u in ctx.store.known_units() if u.startswith("autoclaw:")}
    for root in roots:
        extras = read_extras(root.path) if root.kind == "autoclaw" else AutoclawExtras()
        for msg in extras.errors:
            root_error(report, Code.SOURCE_CORRUPT, f"autoclaw:{root.path}", msg)
        matched: set[str] = set()
        hidden: list[str] = []
        for rel_dir in skill_dirs(root.path, hidden):
            folder = root.path / rel_dir
            if ctx.excluded_path(str(folder)):
                continue
            unit = f"{root.kind}:{root.path}:{rel_dir}"
            seen.add(unit)
            matched |= _skill(ctx, report, unit, root, rel_dir, extras, taken)
        for rel_dir in hidden:  # neither read nor known gone: the skills under it keep their last good rows
            unit = f"{root.kind}:{root.path}:{rel_dir}"
            seen |= {u for u in ctx.store.known_units() if u == unit or u.startswith(f"{unit}/")} | {unit}
            report.units_seen += 1
            report.degraded = True
            ctx.unit_failed(report, unit, Code.SOURCE_UNAVAILABLE.value,
                            f"{rel_dir}: folder unreadable (last good data kept)")
        for sid in sorted(set(extras.removed_at) - matched):  # tombstoned, folder gone
            unit = f"{root.kind}:{root.path}:{sid}"
            seen.add(unit)
            report.units_seen += 1
            _emit(ctx, report, unit, _removed_row(root, sid, extras, taken), [], {"resources": 0})
    for unit in sorted(ctx.store.known_units() - seen):
        ctx.lake.drop_unit(SOURCE, unit_key(SOURCE, unit))
        ctx.store.forget(unit)
        report.units_removed += 1
    return report


def _skill(ctx: ExtractContext, report: SourceReport, unit: str, root: Root, rel_dir: str,
           extras: AutoclawExtras, taken: set[str]) -> set[str]:
    """Index one skill folder; returns the AutoClaw skillIds it accounts for."""
    report.units_seen += 1
    folder = root.path / rel_dir
    md = folder / SKILL_FILE
    if not inside(md, root.path):  # a SKILL.md linked out of its root (say to /etc/passwd): never read
        ctx.lake.drop_unit(SOURCE, unit_key(SOURCE, unit))
        skipped(ctx, report, unit, f"{rel_dir}/{SKILL_FILE}: a link out of the skills root")
        return set()
    try:
        raw = md.read_bytes()
        parsed = parse_skill_md(raw)
    except (OSError, SkillParseError) as e:
        if rel_dir in extras.removed_at:  # still known as removed, never live
            _emit(ctx, report, unit, _removed_row(root, rel_dir, extras, taken), [], {"resources": 0})
            return {rel_dir}
        # keep the skill's last good rows, as broken sessions and databases do; the unit state says so
        if isinstance(e, SkillParseError):
            code, msg = Code.SOURCE_CORRUPT, str(e)
        else:
            code, msg = Code.SOURCE_UNAVAILABLE, f"SKILL.md unreadable ({type(e).__name__})"
        ctx.unit_failed(report, unit, code.value, f"{rel_dir}: {msg} (last good data kept)")
        return set()
    name = parsed.name or Path(rel_dir).name
    xkey = rel_dir if rel_dir in extras.entry_keys() else name
    skill_id = _claim(f"skill:{root.kind}:{name}{root.id_suffix}", str(folder), taken)
    if ctx.excluded_skill(skill_id):  # forgotten (akw forget skill): its rows go, its folder is not read
        ctx.lake.drop_unit(SOURCE, unit_key(SOURCE, unit))
        report.units_removed += int(ctx.store.cursor(unit) is not None)
        ctx.store.forget(unit)  # and no unit state: nothing under AKW_HOME names it
        return {xkey}
    stats = stat_resources(str(folder), skip=ctx.excluded_path)
    sha = hashlib.sha256(raw).hexdigest()
    revision = _revision(skill_id, str(folder), sha, stats, extras.entry(xkey), redaction_sig(ctx.settings))
    key = unit_key(SOURCE, unit)
    if ctx.store.cursor(unit) == revision and _has_file(ctx, key):
        report.units_unchanged += 1
        return {xkey}
    resources = [r for r in (hash_resource(s) for s in stats) if r is not None]
    exists = {r.rel_path for r in resources} | _dirs_of(r.rel_path for r in resources)
    row = _row(root, rel_dir, skill_id, name, md, parsed, sha, len(raw), extras, xkey)
    row["referenced_missing"] = missing_references(parsed.body, exists)
    row["revision"] = revision
    res_rows = [{"skill_id": skill_id, "rel_path": r.rel_path, "size": r.size, "sha256": r.sha256,
                 "is_binary": r.is_binary} for r in resources]
    _emit(ctx, report, unit, row, res_rows,
          {"resources": len(res_rows), "referenced_missing": len(row["referenced_missing"])})
    return {xkey}


def _emit(ctx: ExtractContext, report: SourceReport, unit: str, row: dict[str, Any],
          res_rows: list[dict[str, Any]], counts: dict[str, int]) -> None:
    """Write one unit's rows unless its revision is unchanged and its file is present."""
    key, revision = unit_key(SOURCE, unit), row["revision"]
    if ctx.excluded_skill(row["skill_id"]):  # a forgotten skill known only from the ledger (folder gone)
        ctx.lake.drop_unit(SOURCE, key)
        ctx.store.forget(unit)
        return
    if ctx.store.cursor(unit) == revision and _has_file(ctx, key):
        report.units_unchanged += 1
        return
    n = ctx.lake.write_unit(SOURCE, "skills", key, pl.DataFrame([row], schema=SKILLS_SCHEMA))
    m = ctx.lake.write_unit(SOURCE, "skill_resources", key, pl.DataFrame(res_rows, schema=RESOURCES_SCHEMA))
    report.add_rows("skills", n)
    report.add_rows("skill_resources", m)
    report.units_changed += 1
    ctx.unit_ok(report, unit, revision, counts)


def _row(root: Root, rel_dir: str, skill_id: str, name: str, md: Path, p: ParsedSkill, sha: str, size: int,
         extras: AutoclawExtras, xkey: str) -> dict[str, Any]:
    row = _base_row(root, rel_dir, skill_id, name, extras, xkey)
    led = extras.ledger.get(xkey)
    row.update(
        path=str(md), description=p.description, when_to_use=p.when_to_use, metadata_json=p.metadata_json,
        frontmatter_json=p.frontmatter_json, disable_model_invocation=p.disable_model_invocation,
        user_invocable=p.user_invocable, license=p.license, allowed_tools=p.allowed_tools, body=p.body,
        content_hash=f"sha256:{sha}", size=size,
        version=row["version"] or _fm_version(p),
        ledger_matches=None if led is None or led.content_sha256 is None else (
            led.content_sha256 == sha and led.byte_length in (None, size)),
    )
    return row


def _removed_row(root: Root, sid: str, extras: AutoclawExtras, taken: set[str]) -> dict[str, Any]:
    skill_id = _claim(f"skill:{root.kind}:{sid}{root.id_suffix}", str(root.path / sid), taken)
    row = _base_row(root, sid, skill_id, sid, extras, sid)
    # a removed skill has no text, so no redaction signature
    row["revision"] = _revision(skill_id, str(root.path / sid), None, [], extras.entry(sid), [])
    return row


def _base_row(root: Root, rel_dir: str, skill_id: str, name: str, extras: AutoclawExtras,
              xkey: str) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(SKILLS_SCHEMA)
    led = extras.ledger.get(xkey)
    removed = xkey in extras.removed_at
    row.update(
        skill_id=skill_id, name=name, root_kind=root.kind, root_path=str(root.path),
        workspace_id=root.workspace_id, account=root.account, rel_dir=rel_dir, allowed_tools=[],
        status="removed" if removed else "live", removed_at=extras.removed_at.get(xkey),
        version=led.version if led else None, ledger_sha256=led.content_sha256 if led else None,
        deployed_at=led.deployed_at if led else None, bundles=extras.bundles.get(xkey, []),
        referenced_missing=[],
    )
    return row


def _fm_version(p: ParsedSkill) -> str | None:
    """Version from front matter (`version:` or `metadata.version`) when no ledger says otherwise."""
    for blob in (p.frontmatter_json, p.metadata_json):
        data = json.loads(blob) if blob else None
        if isinstance(data, dict) and data.get("version") is not None:
            return str(data["version"])
    return None


def _claim(skill_id: str, folder: str, taken: set[str]) -> str:
    if skill_id in taken:
        skill_id = f"{skill_id}:{hashlib.sha1(folder.encode()).hexdigest()[:8]}"
    taken.add(skill_id)
    return skill_id


def _revision(skill_id: str, folder: str, sha: str | None, stats: list[ResourceStat],
              entry: dict[str, Any], sig: list[Any]) -> str:
    payload = [CURSOR_VERSION, skill_id, folder, sha, [(s.rel_path, s.size, s.mtime_ns) for s in stats], entry]
    payload.append(sig)
    return "sha256:" + hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _dirs_of(paths: Any) -> set[str]:
    out: set[str] = set()
    for p in paths:
        parts = p.split("/")[:-1]
        out.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return out


def _has_file(ctx: ExtractContext, key: str) -> bool:
    return (ctx.lake.table_dir(SOURCE, "skills") / f"{key}.parquet").exists()
