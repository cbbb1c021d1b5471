"""The shared job of the agent tools that keep one append-only JSONL file per session (Claude Code, Codex).

A unit is one file (`file:<path under the root>`). Each source package says where its files are and how
a file's lines map onto the common event model (`eventlog`); this module does the rest the same way for
both (issue 26):
- incremental and live-safe: only complete lines are read (a trailing partial line is a live tail that
  waits for the next run); the cursor keeps the file's identity and the size + hash of the consumed
  prefix, so an unchanged file is never opened and a file whose only change is a partial tail is not
  re-parsed; a rewritten file (prefix changed) rebuilds its unit;
- kept when the tool deletes it: Claude Code removes transcripts after `cleanupPeriodDays`, so a vanished
  file's rows stay in the lake until the warehouse's own retention (`retention_days`) or `akw forget`;
- read-only, never through a link out of the root, redacted by the lake before anything is written;
- one broken file is its unit's coded error; unknown line types are counted, skipped and reported once
  as a coded warning (`KNOWLEDGE_SOURCE_SCHEMA_UNSUPPORTED`), never a failure.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
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
    utc_now_iso,
)
from warehouse.extract.eventlog import (
    ARTIFACTS_SCHEMA,
    EVENTS_SCHEMA,
    SESSIONS_SCHEMA,
    ParsedLog,
    PathFilter,
    dumps,
    last_activity_ms,
    to_frame,
)
from warehouse.home.lake import SCHEMA_FILE, unit_key
from warehouse.home.state import SourceStore, UnitState

# the harness-family session row, plus what says which tool wrote it
TOOL_SESSIONS_SCHEMA: dict[str, pl.DataType] = {
    **SESSIONS_SCHEMA, "origin": pl.String(), "git_branch": pl.String(), "tool_version": pl.String(),
    "agent_id": pl.String(), "originator": pl.String(), "source_ids": pl.List(pl.String()),
    "lines_skipped": pl.Int64(), "unknown_types": pl.List(pl.String()), "vanished": pl.Boolean(),
}
TABLES = {"sessions": TOOL_SESSIONS_SCHEMA, "events": EVENTS_SCHEMA, "artifacts": ARTIFACTS_SCHEMA}


@dataclass(frozen=True)
class LogFile:
    """One session file; `parent` and `agent_id` set for a subagent's file when its path says so."""

    rel: str  # POSIX path under the root: the unit's name
    path: Path
    session_id: str | None  # from the path (None: read from the file's lines)
    parent: str | None = None
    agent_id: str | None = None

    @property
    def unit(self) -> str:
        return f"file:{self.rel}"


@dataclass(frozen=True)
class Identity:
    """What a parsed file is: its session id and, for a subagent, its parent and role name."""

    session_id: str
    parent: str | None = None
    name: str | None = None


Parser = Callable[[str, bytes, PathFilter | None], ParsedLog]
Identify = Callable[[LogFile, ParsedLog, dict[str, Any]], Identity | None]


@dataclass(frozen=True)
class ToolSource:
    source: str  # lake source name and settings flag (claude_code | codex)
    parser_version: str
    root: Path
    files: list[LogFile]
    parse: Parser
    identify: Identify  # (file, parsed, names known from parents) -> identity (None: not a session)
    names_of: Callable[[ParsedLog], dict[str, str]] = lambda _p: {}  # subagent names a parent file gives


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def complete_lines(raw: bytes) -> bytes:
    """The bytes up to and including the last newline: a trailing partial line is still being written."""
    end = raw.rfind(b"\n")
    return raw[:end + 1] if end >= 0 else b""


def _sig(ctx: ExtractContext, version: str) -> str:
    ex = ctx.settings.exclude
    return _sha(dumps([version, ex.paths, ex.file_patterns, ex.sessions, ex.workspaces, ex.actors,
                       *redaction_sig(ctx.settings),
                       ctx.privacy_sig()]).encode())[:16]


def _excluded(ctx: ExtractContext, ident: Identity, cwd: str | None) -> bool:
    root = f"actor:harness:root:{ident.session_id}"
    sub = f"actor:harness:subagent:{ident.parent}:{ident.name or ident.session_id}" if ident.parent else None
    return (ctx.excluded_session(ident.session_id) or bool(ident.parent and ctx.excluded_session(ident.parent))
            or ctx.excluded_workspace(cwd, os.path.basename((cwd or "").rstrip("/")) or None)
            or ctx.excluded_actor(root if not ident.parent else sub, ident.name))


def _session_row(src: ToolSource, f: LogFile, ident: Identity, parsed: ParsedLog, revision: str) -> dict[str, Any]:
    h, st = parsed.header, parsed.stats
    cwd = h.get("cwd") if isinstance(h.get("cwd"), str) else None
    row: dict[str, Any] = {k: v for k, v in st.items() if k in TOOL_SESSIONS_SCHEMA}
    row.update({
        "session_id": ident.session_id, "workspace_id": None, "workspace_path": cwd, "workspace_title": None,
        "rel_path": f.rel, "cwd": cwd, "created_at": h.get("created_at"), "parent_session": None,
        "agent_preset": None, "title": h.get("title") or st.get("title"), "frames": None,
        "artifacts": len(parsed.artifacts), "subagent_parent": ident.parent, "subagent_name": ident.name,
        "revision": revision, "origin": src.source, "git_branch": h.get("git_branch"),
        "tool_version": h.get("tool_version"), "agent_id": h.get("agent_id") or f.agent_id,
        "originator": h.get("originator"), "source_ids": list(h.get("session_ids") or []),
        "unknown_types": list(st.get("unknown_types") or []), "vanished": False,
    })
    row["model"] = st.get("model") or h.get("model")
    return row


def _sync_file(ctx: ExtractContext, rep: SourceReport, src: ToolSource, f: LogFile, keep: set[str], sig: str,
               names: dict[str, str]) -> ParsedLog | None:
    """Extract one file if it changed; returns the parse when it read one (for the names a parent gives)."""
    unit, key = f.unit, unit_key(f.rel)
    rep.units_seen += 1
    cur = ctx.store.cursor(unit) if isinstance(ctx.store.cursor(unit), dict) else {}
    name_ctx = names.get(f.agent_id or "") if f.agent_id else None
    context = _sha(dumps([sig, name_ctx]).encode())[:20]
    try:
        st = os.stat(f.path)
        ident = {"dev": st.st_dev, "ino": st.st_ino, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
        same = all(cur.get(k) == v for k, v in ident.items())
        if same and ctx.expired(cur.get("last_ms")):
            ctx.drop_unit(rep, unit, "expired")
            return None
        fresh = cur.get("context") == context and (ctx.lake.table_dir(src.source, "sessions")
                                                   / f"{key}.parquet").exists()
        if fresh and same:
            keep.add(key)
            rep.units_unchanged += 1
            return None
        data = complete_lines(read_regular(f.path))  # a FIFO here fails its unit, never hangs the run
        sha = _sha(data)
        if fresh and cur.get("sha256") == sha:  # only a partial tail (or nothing) was added
            keep.add(key)
            ctx.store.set_cursor(unit, {**cur, **ident})
            rep.units_unchanged += 1
            return None
        parsed = src.parse(f.session_id or "", data, ctx.excluded_path)
    except (OSError, ValueError) as e:
        rep.degraded = True
        keep.add(key)  # its last good rows stay
        why = str(e) if isinstance(e, NotRegularFile) else f"unreadable ({type(e).__name__})"
        ctx.unit_failed(rep, unit, (Code.SOURCE_UNAVAILABLE if isinstance(e, OSError) else Code.SOURCE_CORRUPT).value,
                        f"{f.rel}: {why}")
        return None
    who = src.identify(f, parsed, names)
    if who is None:  # a legacy subagent file whose lines name no session: nothing to attach it to
        skipped(ctx, rep, unit, "no session id in its lines")
        return parsed
    if who.session_id != f.session_id:  # the id came from the lines (or the subagent's parent): the rows take it
        for row in (*parsed.events, *parsed.artifacts):
            row["session_id"] = who.session_id
    cwd = parsed.header.get("cwd")
    if _excluded(ctx, who, cwd if isinstance(cwd, str) else None):
        # a forgotten one leaves no state that names it (its file is read again each run, and dropped again)
        forgotten = ctx.forgotten("session", who.session_id, who.parent) or ctx.forgotten("workspace", cwd)
        ctx.drop_unit(rep, unit, "excluded", record=not forgotten)
        return parsed
    last_ms = last_activity_ms(parsed)
    # who the file is rides in its cursor: once the tool deletes the file, exclusions and `akw forget` still
    # know which session its kept rows are (`_keep_vanished`)
    cursor = {**ident, "sha256": sha, "consumed": len(data), "context": context, "last_ms": last_ms,
              "session": who.session_id, "parent": who.parent, "cwd": cwd if isinstance(cwd, str) else None}
    if ctx.expired(last_ms):
        ctx.drop_unit(rep, unit, "expired")
        ctx.store.set_cursor(unit, cursor)
        return parsed
    revision = _sha(f"{src.parser_version}|{sha}|{context}".encode())[:20]
    keep.add(key)
    row = _session_row(src, f, who, parsed, revision)
    for table, df in (("sessions", to_frame([row], TOOL_SESSIONS_SCHEMA)),
                      ("events", to_frame(parsed.events, EVENTS_SCHEMA)),
                      ("artifacts", to_frame(parsed.artifacts, ARTIFACTS_SCHEMA))):
        rep.add_rows(table, ctx.lake.write_unit(src.source, table, key, df))
    rep.units_changed += 1
    counts = {k: int(parsed.stats.get(k) or 0) for k in ("events", "lines_bad", "events_unknown", "lines_skipped",
                                                          "human_messages", "tool_calls", "tool_errors")}
    ctx.unit_ok(rep, unit, revision, counts=counts, schema_version=parsed.header.get("tool_version"),
                cursor={**cursor, "revision": revision})
    return parsed


def _keep_vanished(ctx: ExtractContext, rep: SourceReport, src: ToolSource, live: set[str], keep: set[str]) -> None:
    """A file the tool deleted keeps its rows until retention says it is old (or `akw forget` removes it)."""
    for unit in sorted(ctx.store.known_units() - live):
        if not unit.startswith("file:"):
            continue
        cur = ctx.store.cursor(unit)
        key = unit_key(unit[len("file:"):])
        if isinstance(cur, dict) and cur.get("session") and _excluded(
                ctx, Identity(cur["session"], cur.get("parent")), cur.get("cwd")):  # excluded or forgotten since
            forgotten = ctx.forgotten("session", cur["session"], cur.get("parent")) or \
                ctx.forgotten("workspace", cur.get("cwd"))
            ctx.drop_unit(rep, unit, "excluded", record=not forgotten)
            continue
        if isinstance(cur, dict) and cur.get("revision") and not ctx.expired(cur.get("last_ms")):
            keep.add(key)
            if not cur.get("vanished"):  # once: its rows say so, and its revision changes (a new index_rev)
                _mark_vanished(ctx, src, key)
                revision = f"{cur['revision']}:vanished"
                ctx.store.set_cursor(unit, {**cur, "vanished": True, "revision": revision})
                ctx.store.set_unit(UnitState(src.source, unit, revision, "ok", extracted_at=utc_now_iso(),
                                             error="the tool deleted this file: kept until retention_days"))
            continue
        rep.units_expired += int(isinstance(cur, dict) and bool(cur.get("revision")))
        ctx.store.forget(unit)


def _mark_vanished(ctx: ExtractContext, src: ToolSource, key: str) -> None:
    path = ctx.lake.table_dir(src.source, "sessions") / f"{key}.parquet"
    if not path.exists():
        return
    df = pl.read_parquet(path)
    if "vanished" in df.columns and bool(df["vanished"].all()):
        return
    ctx.lake.write_unit(src.source, "sessions", key, df.with_columns(pl.lit(True).alias("vanished")))


def reset_keeping_vanished(lake_root: Path, state_dir: Path, source: str, root: Path) -> None:
    """`reindex --mode full` of a tool source: forget its lake and cursors like any source's, except the units
    whose file the tool deleted — those cannot be read again, and are kept until retention or `akw forget`."""
    store = SourceStore(state_dir, source)
    kept = {u for u, cur in store.cursors.items() if u.startswith("file:") and isinstance(cur, dict)
            and cur.get("revision") and not (root / u[len("file:"):]).exists()}
    keys = {unit_key(u[len("file:"):]) for u in kept}
    for f in sorted((lake_root / "bronze" / source).glob("*/*.parquet")):
        if f.name != SCHEMA_FILE and f.stem not in keys:
            f.unlink()
    for unit in sorted(store.known_units() - kept):
        store.forget(unit)
    store.save()


def run(ctx: ExtractContext, src: ToolSource) -> SourceReport:
    """Extract every session file of one tool, incrementally; parents before their subagents."""
    rep = SourceReport(source=src.source)
    for table, schema in TABLES.items():
        ctx.lake.ensure_table(src.source, table, schema)
    keep: set[str] = set()
    sig = _sig(ctx, src.parser_version)
    names: dict[str, str] = {}
    unknown: set[str] = set()
    files = sorted(src.files, key=lambda f: (f.agent_id is not None, f.rel))
    for f in files:
        if not inside(f.path, src.root):  # a session file linked from elsewhere: never read
            rep.units_seen += 1
            skipped(ctx, rep, f.unit, f"session log is a link out of the {src.source} root")
            continue
        try:
            parsed = _sync_file(ctx, rep, src, f, keep, sig, names)
        except Exception as e:  # isolation: one file's bug never stops the others
            rep.degraded = True
            keep.add(unit_key(f.rel))
            ctx.unit_failed(rep, f.unit, Code.INTERNAL.value, f"{type(e).__name__}: {e}")
            parsed = None
        cur = ctx.store.cursor(f.unit)
        if parsed is not None:  # the subagent names a parent gives ride in its cursor for unchanged runs
            unknown.update(parsed.stats.get("unknown_types") or [])
            found = src.names_of(parsed)
            if found and isinstance(cur, dict):
                ctx.store.set_cursor(f.unit, {**cur, "names": found})
        else:
            found = cur.get("names") if isinstance(cur, dict) else None
        if isinstance(found, dict):
            names.update(found)
        ctx.tick(src.source, 1, len(files))
    live = {f.unit for f in files}
    _keep_vanished(ctx, rep, src, live, keep)
    if unknown:
        rep.warnings.append({"code": Code.SOURCE_SCHEMA_UNSUPPORTED.value, "unit": src.source,
                             "message": f"line types not read (counted and skipped): {', '.join(sorted(unknown))}"})
    stale: set[str] = set()
    for table in TABLES:
        stale |= ctx.lake.unit_keys(src.source, table) - keep
    for key in sorted(stale):
        ctx.lake.drop_unit(src.source, key)
    return rep

