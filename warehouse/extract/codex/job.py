"""Codex CLI extractor: `<CODEX_HOME or ~/.codex>/{sessions,archived_sessions}/**/rollout-*.jsonl`
-> `bronze/codex/<table>/`.

One rollout file is one session (its id from the `session_meta` line, else the file name's UUID); a resumed
session appends to its own file. The shared job (`session_files`) does the incremental, live-safe and
keep-when-deleted rest.
"""

from __future__ import annotations

from pathlib import Path

from warehouse.extract.base import ExtractContext, SourceReport
from warehouse.extract.codex.parse import parse_file, session_id_of
from warehouse.extract.eventlog import ParsedLog
from warehouse.extract.session_files import TABLES, Identity, LogFile, ToolSource, run

SOURCE = "codex"
PARSER_VERSION = "codex-1"  # bump when row shapes change: every file re-extracts
FOLDERS = ("sessions", "archived_sessions")
__all__ = ["SOURCE", "TABLES", "discover", "extract"]


def discover(root: Path) -> list[LogFile]:
    """Every rollout file, sorted by path (the session id is read from its first lines)."""
    out: list[LogFile] = []
    for folder in FOLDERS:
        base = root / folder
        if base.is_dir():
            out += [LogFile(p.relative_to(root).as_posix(), p, None) for p in sorted(base.rglob("rollout-*.jsonl"))]
    return out


def identify(f: LogFile, parsed: ParsedLog, _names: dict[str, str]) -> Identity | None:
    sid = parsed.header.get("session_id") or session_id_of(Path(f.rel).name, b"")  # the first session_meta's id
    return Identity(sid) if sid else None


def extract(ctx: ExtractContext) -> SourceReport:
    root = ctx.paths.codex_home
    return run(ctx, ToolSource(SOURCE, PARSER_VERSION, root, discover(root), parse_file, identify))
