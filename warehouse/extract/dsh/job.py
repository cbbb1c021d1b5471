"""DSH extractor: session logs + projections + workspace registry -> `bronze/dsh/<table>/`.

One unit per session file (`session:<id>`) plus the registry (`registry`). A session's
revision hashes the log bytes, its projection bytes, the registry entry it uses and the
exclusion settings that shape its rows, so any of those changing re-extracts just that
session. The cheap path never opens an unchanged log: (dev, ino, size, mtime_ns) equal
to the cursor and the same context hash -> skip. Sources are only ever opened "rb".
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from warehouse.core.errors import Code
from warehouse.extract.base import (
    ExtractContext,
    NotRegularFile,
    SourceReport,
    inside,
    read_regular,
    redaction_sig,
    skipped,
)
from warehouse.extract.dsh.parse import CorruptLog, decode, frame_info, parse_log
from warehouse.extract.eventlog import (
    ARTIFACTS_SCHEMA,
    EVENTS_SCHEMA,
    SESSIONS_SCHEMA,
    ParsedLog,
    dumps,
    last_activity_ms,
    to_bool,
    to_frame,
    to_int,
    to_ms,
    to_str,
)
from warehouse.extract.registry import read_registry
from warehouse.home.lake import unit_key

SOURCE = "dsh"
PARSER_VERSION = "dsh-1"  # bump when row shapes change: every session re-extracts
LOG_NAME = "session.v4.jsonl.zstd"
REGISTRY_UNIT = "registry"

WORKSPACES_SCHEMA: dict[str, pl.DataType] = {
    "workspace_id": pl.String(), "path": pl.String(), "title": pl.String(), "archived": pl.Boolean(),
    "pinned": pl.Boolean(), "session_ids": pl.List(pl.String()),
}
TABLES = {"sessions": SESSIONS_SCHEMA, "events": EVENTS_SCHEMA, "artifacts": ARTIFACTS_SCHEMA,
          "workspaces": WORKSPACES_SCHEMA}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read(path: Path) -> bytes | None:
    try:
        return read_regular(path)
    except OSError:
        return None


def _json(data: bytes | None) -> Any:
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None


# -- registry ---------------------------------------------------------------------
@dataclass
class SessionRegistry:
    """The registry (read by `extract.registry`, the rules every job shares) plus session -> workspace."""

    raw: bytes | None = None
    corrupt: bool = False
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    by_session: dict[str, str] = field(default_factory=dict)

    def entry_for(self, workspace_id: str, session_id: str) -> dict[str, Any]:
        e = self.entries.get(workspace_id)
        if e is None and session_id in self.by_session:
            e = self.entries.get(self.by_session[session_id])
        return e or {}


def load_registry(home: Path) -> SessionRegistry:
    found = read_registry(home)
    reg = SessionRegistry(raw=found.raw, corrupt=found.error is not None, entries=found.entries)
    for wid, w in found.entries.items():
        for sid in w.get("sessionIds") or []:
            if isinstance(sid, str):
                reg.by_session.setdefault(sid, wid)
    return reg


def _sync_registry(ctx: ExtractContext, rep: SourceReport, reg: SessionRegistry, keep: set[str], sig: str) -> None:
    key = unit_key(REGISTRY_UNIT)
    if reg.raw is None:
        return  # absent: orphan cleanup drops old rows
    rep.units_seen += 1
    if reg.corrupt:
        keep.add(key)  # keep the last good copy; the unit state says it is broken
        ctx.unit_failed(rep, REGISTRY_UNIT, Code.SOURCE_CORRUPT.value, "storages/workspace.json: not a registry")
        return
    rows = []
    for wid in sorted(reg.entries):
        w = reg.entries[wid]
        if ctx.excluded_workspace(wid, to_str(w.get("path"))):
            continue
        sids = sorted({s for s in w.get("sessionIds") or [] if isinstance(s, str) and not ctx.excluded_session(s)})
        rows.append({"workspace_id": wid, "path": to_str(w.get("path")), "title": to_str(w.get("title")),
                     "archived": to_bool(w.get("archived")), "pinned": to_bool(w.get("pinned")), "session_ids": sids})
    revision = _sha(f"{PARSER_VERSION}|{_sha(reg.raw)}|{sig}|{dumps(rows)}".encode())[:20]
    keep.add(key)
    if ctx.store.cursor(REGISTRY_UNIT) == revision and _has_file(ctx, "workspaces", key, bool(rows)):
        rep.units_unchanged += 1
        return
    n = ctx.lake.write_unit(SOURCE, "workspaces", key, to_frame(rows, WORKSPACES_SCHEMA))
    rep.add_rows("workspaces", n)
    rep.units_changed += 1
    ctx.unit_ok(rep, REGISTRY_UNIT, revision, counts={"workspaces": n})


# -- sessions ---------------------------------------------------------------------
@dataclass(frozen=True)
class SessionFile:
    session_id: str
    workspace_id: str
    path: Path


def discover(home: Path, unreadable: list[str] | None = None) -> list[SessionFile]:
    """Every `sessions/<ws>/<id>/session.v4.jsonl.zstd`, sorted; a session id seen twice keeps its first path.

    A session folder it may not enter (mode 000) is listed anyway, so its unit fails with a coded error and
    keeps its last good rows; a workspace folder it may not list goes to `unreadable` (`sessions/<ws>`).
    A glob skipped both without a word (issue 25)."""
    root = home / "sessions"
    out: dict[str, SessionFile] = {}
    for ws in _folders(root, unreadable, "sessions"):
        for sess in _folders(ws, unreadable, f"sessions/{ws.name}"):
            log = sess / LOG_NAME
            try:
                os.lstat(log)
            except (FileNotFoundError, NotADirectoryError):
                continue  # no session here
            except OSError:
                pass  # there, but not for us to stat: the unit says so
            out.setdefault(sess.name, SessionFile(sess.name, ws.name, log))
    return [out[k] for k in sorted(out)]


def _folders(d: Path, unreadable: list[str] | None, rel: str) -> list[Path]:
    """The sub-folders of `d`, sorted; `d` unlistable -> none, and `rel` noted in `unreadable`."""
    try:
        entries = sorted(os.scandir(d), key=lambda e: e.name)
    except FileNotFoundError:
        return []
    except OSError:
        if unreadable is not None:
            unreadable.append(rel)
        return []
    out = []
    for e in entries:
        try:
            if e.is_dir():
                out.append(Path(e.path))
        except OSError:
            continue
    return out


def _exclusion_sig(ctx: ExtractContext) -> str:
    ex = ctx.settings.exclude
    return _sha(dumps([ex.paths, ex.file_patterns, *redaction_sig(ctx.settings), ctx.privacy_sig()]).encode())[:16]


def _actor_ids(session_id: str, proj: dict[str, Any]) -> tuple[str, ...]:
    """The actor ids this session can belong to (as `stg_dsh_sessions` names them) and the subagent's name,
    for `exclude.actors` and forgotten actors (a team member is named by its lead's projection: not here)."""
    parent, name = proj.get("subagent_parent"), proj.get("subagent_name")
    if parent:
        return (f"actor:harness:subagent:{parent}:{name or session_id}", name or "")
    return (f"actor:harness:root:{session_id}",)


def _has_file(ctx: ExtractContext, table: str, key: str, expected: bool = True) -> bool:
    return not expected or (ctx.lake.table_dir(SOURCE, table) / f"{key}.parquet").exists()


def _projection(proj: Any) -> dict[str, Any]:
    """Projection fields as nullable extra columns (it may be missing or stale)."""
    if not isinstance(proj, dict):
        return {"proj_present": False}

    def sub(k: str) -> dict[str, Any]:
        v = proj.get(k)
        return v if isinstance(v, dict) else {}

    team, agent, stats, tokens, meta = sub("agentTeam"), sub("subagent"), sub("stats"), sub("tokens"), \
        sub("sessionListMetadata")
    return {
        "proj_present": True, "proj_title": to_str(proj.get("title")), "proj_workspace": to_str(proj.get("workspace")),
        "proj_updated_at": to_ms(proj.get("updatedAt")), "proj_events": to_int(stats.get("events")),
        "proj_tool_calls": to_int(stats.get("toolCalls")), "proj_input_tokens": to_int(tokens.get("input")),
        "proj_output_tokens": to_int(tokens.get("output")),
        "agent_team_json": dumps(proj["agentTeam"]) if proj.get("agentTeam") is not None else None,
        "team_lead": to_str(team.get("lead")), "subagent_parent": to_str(agent.get("parentSession")),
        "subagent_name": to_str(agent.get("name")),
        "todos_json": dumps(proj["todos"]) if proj.get("todos") is not None else None,
        "plan_json": dumps(proj["plan"]) if proj.get("plan") is not None else None,
        "archived": to_bool(meta.get("archived")), "pinned": to_bool(meta.get("pinned")),
    }


def _session_row(sf: SessionFile, home: Path, parsed: ParsedLog, frames: int, ws: dict[str, Any],
                 proj: dict[str, Any], revision: str) -> dict[str, Any]:
    h, st = parsed.header, parsed.stats
    row: dict[str, Any] = {
        "session_id": sf.session_id, "workspace_id": sf.workspace_id, "workspace_path": to_str(ws.get("path")),
        "workspace_title": to_str(ws.get("title")), "rel_path": sf.path.relative_to(home).as_posix(),
        "cwd": to_str(h.get("cwd")), "created_at": to_ms(h.get("createdAt")),
        "parent_session": to_str(h.get("parentSession")), "agent_preset": to_str(h.get("agentPreset")),
        "frames": frames, "artifacts": len(parsed.artifacts), "revision": revision,
    }
    row.update({k: v for k, v in st.items() if k in SESSIONS_SCHEMA})
    row.update(proj)
    row["title"] = st["title"] or proj.get("proj_title")  # the log wins; a projection title beats none
    return row


def _sync_session(ctx: ExtractContext, rep: SourceReport, sf: SessionFile, reg: SessionRegistry, keep: set[str],
                  sig: str) -> None:
    unit, key, home = f"session:{sf.session_id}", unit_key(sf.session_id), ctx.paths.dsh_home
    ws = reg.entry_for(sf.workspace_id, sf.session_id)
    proj_path = home / "storages" / "session_projcache" / "sessions" / f"{sf.session_id}.json"
    proj_raw = _read(proj_path) if inside(proj_path, home) else None  # a link out counts as no projection
    proj = _projection(_json(proj_raw))
    rep.units_seen += 1
    if ctx.excluded_session(sf.session_id) or ctx.excluded_workspace(
            sf.workspace_id, to_str(ws.get("path")), proj.get("proj_workspace")) or ctx.excluded_actor(
            *_actor_ids(sf.session_id, proj)):
        # a forgotten session leaves no unit state: its id must not stay in the state files
        ctx.drop_unit(rep, unit, record=not (ctx.forgotten("session", sf.session_id) or ctx.forgotten(
            "workspace", sf.workspace_id, to_str(ws.get("path"))) or ctx.forgotten("actor", *_actor_ids(
                sf.session_id, proj))))
        return
    keep.add(key)  # a failing unit keeps its last good rows; its state carries the error
    context = _sha(dumps([PARSER_VERSION, _sha(proj_raw) if proj_raw is not None else None,
                          {k: ws.get(k) for k in ("id", "path", "title")}, sig]).encode())[:20]
    cur = ctx.store.cursor(unit) if isinstance(ctx.store.cursor(unit), dict) else {}
    try:
        st = os.stat(sf.path)
        ident = {"dev": st.st_dev, "ino": st.st_ino, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
        same = all(cur.get(k) == v for k, v in ident.items())
        if same and ctx.expired(cur.get("last_ms")):  # unchanged and out of the window: dropped unread
            keep.discard(key)
            ctx.drop_unit(rep, unit, "expired")
            return
        fresh = cur.get("context") == context and _has_file(ctx, "sessions", key)
        if fresh and all(cur.get(k) == v for k, v in ident.items()):
            rep.units_unchanged += 1
            return
        raw = read_regular(sf.path)  # a FIFO here must not hang the run: its unit fails, coded
        sha = _sha(raw)
        revision = _sha(f"{sha}|{context}".encode())[:20]
        if fresh and cur.get("sha256") == sha:
            ctx.store.set_cursor(unit, {**cur, **ident})
            rep.units_unchanged += 1
            return
        parsed = parse_log(sf.session_id, decode(raw), ctx.excluded_path)
        if not parsed.header and not parsed.events:  # empty, or random bytes behind a zstd magic
            raise CorruptLog("no readable line" if raw else "empty session log")
        if not parsed.header:  # events without the session header line: counted as a bad line
            parsed.stats["lines_bad"] += 1
        last_ms = last_activity_ms(parsed)
        if ctx.expired(last_ms):
            keep.discard(key)
            ctx.drop_unit(rep, unit, "expired")
            ctx.store.set_cursor(unit, {**ident, "sha256": sha, "context": context, "last_ms": last_ms})
            return
        frames, torn = frame_info(raw)
        parsed.stats["truncated_tail"] = parsed.stats["truncated_tail"] or torn
    except (OSError, CorruptLog) as e:  # the unit keeps its last good rows
        rep.degraded = True
        code = Code.SOURCE_CORRUPT if isinstance(e, CorruptLog) else Code.SOURCE_UNAVAILABLE
        why = str(e) if isinstance(e, (CorruptLog, NotRegularFile)) else f"unreadable ({type(e).__name__})"
        ctx.unit_failed(rep, unit, code.value, f"{sf.path.relative_to(home).as_posix()}: {why}")
        return
    row = _session_row(sf, home, parsed, frames, ws, proj, revision)
    if ctx.forgotten("session", row["parent_session"]):  # a fork outlives its forgotten parent: not its id
        row["parent_session"] = None  # (issue 25; the tombstones enter `sig`, so an older fork is re-read)
    for table, df in (("sessions", to_frame([row], SESSIONS_SCHEMA)),
                      ("events", to_frame(parsed.events, EVENTS_SCHEMA)),
                      ("artifacts", to_frame(parsed.artifacts, ARTIFACTS_SCHEMA))):
        rep.add_rows(table, ctx.lake.write_unit(SOURCE, table, key, df))
    rep.units_changed += 1
    counts = {k: int(row[k]) for k in ("events", "events_replayed", "lines_bad", "artifacts", "frames")}
    counts["header_missing"] = int(not parsed.header)
    counts["projection_bad"] = int(proj_raw is not None and not isinstance(_json(proj_raw), dict))
    ctx.unit_ok(rep, unit, revision, counts=counts, schema_version=to_str(parsed.header.get("version")),
                cursor={**ident, "sha256": sha, "context": context, "revision": revision, "last_ms": last_ms})


def _cleanup(ctx: ExtractContext, rep: SourceReport, live_units: set[str], keep: set[str]) -> None:
    """Forget vanished units and drop every lake file whose unit is not kept (vanished, excluded, orphaned)."""
    for unit in sorted(ctx.store.known_units() - live_units):
        if unit.startswith("session:") or unit == REGISTRY_UNIT:
            rep.units_removed += int(unit in ctx.store.cursors)
            ctx.store.forget(unit)
    stale: set[str] = set()
    for table in TABLES:
        stale |= ctx.lake.unit_keys(SOURCE, table) - keep
    for key in sorted(stale):
        ctx.lake.drop_unit(SOURCE, key)


def extract(ctx: ExtractContext) -> SourceReport:
    """Extract every DSH session and the workspace registry, incrementally."""
    rep = SourceReport(source=SOURCE)
    home = ctx.paths.dsh_home
    if not home.is_dir():  # unmounted or never created: keep what the lake has, say so
        rep.degraded = True
        rep.errors.append({"code": Code.SOURCE_UNAVAILABLE.value, "unit": SOURCE,
                           "message": "DSH home not found"})
        return rep
    for table, schema in TABLES.items():
        ctx.lake.ensure_table(SOURCE, table, schema)
    keep: set[str] = set()
    reg = load_registry(home)
    sig = _exclusion_sig(ctx)
    _sync_registry(ctx, rep, reg, keep, sig)
    hidden: list[str] = []
    files = discover(home, hidden)
    for rel in hidden:  # its sessions are neither read nor known to be gone: every known one keeps its rows
        rep.degraded = True
        rep.errors.append({"code": Code.SOURCE_UNAVAILABLE.value, "unit": rel,
                           "message": "folder unreadable: its sessions keep their last indexed version"})
    for sf in files:
        if not inside(sf.path, home / "sessions"):  # a session file linked from elsewhere: never read
            rep.units_seen += 1
            skipped(ctx, rep, f"session:{sf.session_id}", "session log is a link out of the DSH sessions folder")
            continue
        try:
            _sync_session(ctx, rep, sf, reg, keep, sig)
        except Exception as e:  # isolation: one session's bug never stops the others
            rep.degraded = True
            keep.add(unit_key(sf.session_id))
            ctx.unit_failed(rep, f"session:{sf.session_id}", Code.INTERNAL.value, f"{type(e).__name__}: {e}")
        ctx.tick(SOURCE, 1, len(files))
    live = {f"session:{f.session_id}" for f in files} | ({REGISTRY_UNIT} if reg.raw is not None else set())
    if hidden:
        known = {u for u in ctx.store.known_units() if u.startswith("session:")}
        live |= known
        keep |= {unit_key(u[len("session:"):]) for u in known}
    _cleanup(ctx, rep, live, keep)
    return rep
