"""`akw forget KIND ID`: remove one session, actor, skill or workspace (or everything) without residue.

A dry run (no `confirm`) resolves the target in the published generation and counts what would go.
Confirmed, under the writer lock: the target's ids are tombstoned (content-free hashes, consulted at
extract), the run log is scrubbed of them, outbox records and reports in the home naming them are removed
(a fork keeps its own work but no longer names a forgotten parent: extract/dsh), the forget hooks run
(feedback), then the index is rebuilt from scratch (`--mode full`: lake and cursors re-made without the
target, no tokens or vectors lent by an older generation) and every older generation is deleted. Last,
the residue scan looks for the ids and for text fragments unique to the target in every file under
AKW_HOME; anything found is `KNOWLEDGE_DELETE_PARTIAL` naming the files (ADR 0008).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from warehouse.core import db
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.paths import Paths
from warehouse.core.settings import Settings
from warehouse.core.sqlfiles import query_sql
from warehouse.home import generation, usage
from warehouse.home.tombstones import KINDS, Tombstones
from warehouse.lifecycle import residue
from warehouse.lifecycle.hooks import run_forget_hooks
from warehouse.pipeline.reindex import run_locked
from warehouse.search.access import Scope, view_on

FORGET_KINDS = (*KINDS, "all")
FRAGMENT_CHARS = 40
MAX_FRAGMENTS = 8
SCRUBBED = "[forgotten]"


@dataclass
class Target:
    kind: str
    id: str
    values: dict[str, list[str]] = field(default_factory=dict)  # tombstone kind -> ids
    doc_keys: list[str] = field(default_factory=list)
    episodes: list[str] = field(default_factory=list)
    actors: list[str] = field(default_factory=list)  # owners of its episodes, session-bound actors
    doc_kinds: dict[str, int] = field(default_factory=dict)
    needles: dict[str, str] = field(default_factory=dict)  # label -> id or unique fragment
    counts: dict[str, Any] = field(default_factory=dict)

    def item_ids(self) -> set[str]:
        return {self.id, *self.doc_keys, *self.episodes, *self.actors,
                *(v for vs in self.values.values() for v in vs)} - {"all"}


def resolve(paths: Paths, kind: str, ident: str) -> Target:
    """What the target covers in the published generation (KNOWLEDGE_NOT_FOUND if nothing)."""
    if kind not in FORGET_KINDS:
        raise KnowledgeError(Code.INVALID_REQUEST, f"kind: one of {', '.join(FORGET_KINDS)}", field="kind")
    if kind != "all" and not (ident or "").strip():
        raise KnowledgeError(Code.INVALID_REQUEST, "id: required for this kind", field="id")
    con, _gen = generation.open_current(paths.generations)
    try:
        t = Target(kind, ident if kind != "all" else "all")
        rows = _all_ids(con) if kind == "all" else db.run(con, query_sql("forget_target"), [kind, ident]).fetchall()
        for what, value in rows:
            t.values.setdefault(what, []).append(value)
        if not t.values:
            raise KnowledgeError(Code.NOT_FOUND, f"no {kind} with this id in the index", kind=kind)
        lists = [t.values.get(k, []) for k in ("session", "actor", "skill", "workspace")]
        docs = db.run(con, query_sql("forget_docs"), lists).fetchall()
        t.doc_keys = [d[0] for d in docs]
        t.episodes = [r[0] for r in db.run(con, query_sql("forget_episodes"), lists[:2]).fetchall()]
        t.actors = [r[0] for r in db.run(con, query_sql("forget_actors"), lists[:2]).fetchall()]
        for d in docs:
            t.doc_kinds[d[1]] = t.doc_kinds.get(d[1], 0) + 1
        t.needles = _needles(con, t, docs)
        t.counts = _counts(con, t)
    finally:
        con.close()
    return t


def _all_ids(con: Any) -> list[tuple[str, str]]:
    return [(a, b) for a, b in con.execute(query_sql("forget_all")).fetchall()]


def _needles(con: Any, t: Target, docs: list[tuple[str, str, str, str]]) -> dict[str, str]:
    """The ids, and up to MAX_FRAGMENTS fragments of the target's texts that no other document holds."""
    ids = sorted({v for k, vs in t.values.items() if k != "workspace" or t.kind == "workspace" for v in vs})
    if t.kind != "all":
        ids = sorted({t.id, *ids})
    out = {("id" if i == 0 else f"id-{i}"): v for i, v in enumerate(ids[:200])}
    n = 0
    # session-bound texts (events, episodes, memories) and a forgotten skill's own text: an agent profile
    # is copied per account and a workspace file may be a skill installed elsewhere, so neither proves much
    own = [d for d in docs if (d[2] is not None and d[1] != "actor") or (t.kind == "skill" and d[1] == "skill")]
    step = max(1, len(own) // (MAX_FRAGMENTS * 3))
    for _key, _kind, _session, text in own[::step]:
        frag = _fragment(text)
        if frag is None:
            continue
        if t.kind != "all" and db.run(con, query_sql("forget_shared"), [frag, t.doc_keys]).fetchone()[0]:
            continue  # another document holds it too: finding it later would prove nothing
        n += 1
        out[f"fragment-{n}"] = frag
        if n >= MAX_FRAGMENTS:
            break
    return out


def _fragment(text: str) -> str | None:
    """A FRAGMENT_CHARS window from the middle of a text, on word boundaries (None if too short)."""
    body = " ".join(text.split())
    if len(body) < FRAGMENT_CHARS * 2:
        return None
    mid = len(body) // 2
    start = body.find(" ", mid) + 1 or mid
    frag = body[start:start + FRAGMENT_CHARS]
    return frag if len(frag) == FRAGMENT_CHARS and frag.strip() else None


def _counts(con: Any, t: Target) -> dict[str, Any]:
    sessions = t.values.get("session", [])
    cur = db.run(con, query_sql("forget_counts"), [sessions, sorted(t.item_ids())])
    row = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
    has_vec = con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'akw_vec'").fetchone()[0]
    return {"documents": dict(sorted(t.doc_kinds.items())), "sessions": len(sessions),
            "skills": len(t.values.get("skill", [])),
            "workspaces": len(t.values.get("workspace", [])), **row,
            "vectors": db.run(con, query_sql("forget_vectors"), [t.doc_keys]).fetchone()[0] if has_vec else 0}


def check_rights(paths: Paths, target: Target, scope: Scope) -> None:
    """Under access control a principal forgets only what it sees in full (spec 004).

    Nothing of the target visible: `KNOWLEDGE_NOT_FOUND`, worded as for an id the index does not hold.
    Some of it visible, some not (an actor that also worked in another's workspace, a skill with a copy
    in a root it has no right to): `KNOWLEDGE_ACCESS_DENIED`, which names none of the other items."""
    con, _gen = generation.open_current(paths.generations)
    try:
        view = view_on(con, scope)
        keys = sorted(set(target.doc_keys))
        seen = {r[0] for r in db.run(con, f"SELECT doc_key FROM ak_document WHERE list_contains(?, doc_key) "
                                     f"AND doc_id IN (SELECT doc_id FROM {view.table})", [keys]).fetchall()} \
            if keys else set()
    finally:
        con.close()
    parts = [(set(keys), seen), (set(target.episodes), set(target.episodes) & view.episodes),
             (set(target.actors), set(target.actors) & view.actors),
             (set(target.values.get("skill", [])), set(target.values.get("skill", [])) & view.skills)]
    if not any(visible for _all, visible in parts):
        raise KnowledgeError(Code.NOT_FOUND, f"no {target.kind} with this id in the index", kind=target.kind)
    if any(every - visible for every, visible in parts):
        raise KnowledgeError(Code.ACCESS_DENIED, f"this {target.kind} covers items outside your rights: only a "
                             "principal who sees all of it (or one of access.admins) may forget it",
                             kind=target.kind)


def forget(paths: Paths, settings: Settings, target: Target, confirm: bool = False) -> dict[str, Any]:
    """Every item of `target` (`resolve`; access control is checked by the caller first: `check_rights`)."""
    kind = target.kind
    doc: dict[str, Any] = {"kind": kind, "id": target.id, "confirmed": confirm, "would_remove": target.counts}
    lake = residue.scan(paths.lake, target.needles)
    target.needles = _unique_to_target(target.needles, lake)
    doc["would_remove"]["lake_files"] = sum(_names_target(hit) for hit in lake)
    doc["would_remove"]["outbox_packages"] = len(_files_naming(paths.outbox, target))
    doc["would_remove"]["reports"] = len(_files_naming(paths.reports_dir, target))
    if not confirm:
        doc["note"] = "dry run: nothing was removed; repeat with --yes (confirm: true) to forget"
        return doc
    with generation.writer_lock(paths):
        tombs = Tombstones(paths)
        added = sum(tombs.add(k, vs) for k, vs in target.values.items())
        tombs.save()
        scrubbed = _scrub_text_logs(paths, target)
        for f in [*_files_naming(paths.outbox, target), *_files_naming(paths.reports_dir, target)]:
            _remove(f)
        hooks = run_forget_hooks(paths, target.item_ids())
        if kind == "all":  # the usage counts name nothing, but "everything" means them too
            hooks["usage"] = int(usage.clear(paths))
        run = run_locked(paths, settings, "full")
        dropped = _drop_other_generations(paths)
    remaining = residue.scan(paths.home, target.needles)
    doc.update(removed=doc.pop("would_remove"), tombstones_added=added, log_lines_scrubbed=scrubbed,
               hooks=hooks, generations_dropped=dropped, index_rev=run["index_rev"],
               generation=run.get("generation"), residue=[])
    if remaining:
        raise KnowledgeError(Code.DELETE_PARTIAL, f"{len(remaining)} file(s) under AKW_HOME still hold the "
                             f"forgotten {kind}", remaining=remaining, removed=doc["removed"],
                             index_rev=run["index_rev"])
    return doc


def _unique_to_target(needles: dict[str, str], lake: list[dict[str, object]]) -> dict[str, str]:
    """The needles without the text fragments that a lake file of other work holds too (one without any of
    the target's ids): the same words in another source (an AutoClaw entry quoting the task of a DSH
    session) are that source's, not residue, and would make every forget of it `KNOWLEDGE_DELETE_PARTIAL`.
    `_needles` already drops fragments that another document holds; the lake holds more text than that."""
    shared = {label for hit in lake if not _names_target(hit) for label in _labels(hit)}
    return {label: n for label, n in needles.items() if label not in shared}


def _labels(hit: dict[str, object]) -> list[str]:
    found = hit.get("found")
    return [str(f) for f in found] if isinstance(found, list) else []


def _names_target(hit: dict[str, object]) -> bool:
    """A residue finding that holds one of the target's ids (labels `id`, `id-3`), not only a fragment."""
    return any(label.startswith("id") for label in _labels(hit))


def _files_naming(folder: Path, target: Target) -> list[Path]:
    """The files under `folder` that name the target, each to be removed whole: committed dispatch records
    (their package carries its evidence) and reports written into the home (`akw report --out
    $AKW_HOME/reports`, `reports.on_schedule`: a snapshot of the index as it was). Reports a user wrote
    elsewhere are theirs and are never looked at."""
    if not folder.is_dir():
        return []
    return [folder / str(e["path"]) for e in residue.scan(folder, target.needles)]


def _scrub_text_logs(paths: Paths, target: Target) -> int:
    """The run log (and `logs/`) may name a forgotten unit in an error: replace the ids, keep the lines."""
    files = [paths.runs_log, *sorted(p for p in paths.logs.rglob("*") if p.is_file())] \
        if paths.logs.exists() else [paths.runs_log]
    changed = 0
    for f in files:
        if not f.is_file():
            continue
        text = f.read_text(encoding="utf-8", errors="replace")
        new = text
        for needle in sorted(target.needles.values(), key=len, reverse=True):
            new = new.replace(needle, SCRUBBED)
        if new != text:
            changed += sum(a != b for a, b in zip(text.splitlines(), new.splitlines(), strict=False))
            tmp = f.with_name(f".{f.name}.tmp")
            try:
                tmp.write_text(new, encoding="utf-8")
                os.chmod(tmp, 0o600)
                tmp.replace(f)
            except OSError:
                continue  # the residue scan names the file (KNOWLEDGE_DELETE_PARTIAL)
    return changed


def _remove(f: Path) -> bool:
    """Unlink; a file that cannot be removed is left for the residue scan to report, not an error here."""
    try:
        f.unlink(missing_ok=True)
    except OSError:
        return False
    return True


def _drop_other_generations(paths: Paths) -> int:
    """Keep only the generation just published: an older one still holds the forgotten text."""
    cur = generation.current(paths.generations)
    dropped = 0
    for f in sorted(paths.generations.glob("gen-*")):
        if cur is None or not f.name.startswith(cur.path.name):
            dropped += int(_remove(f) and f.suffix == ".duckdb")
    generation.discard_stale_builds(paths.generations)
    return dropped
