"""Claude Code extractor: `<CLAUDE_CONFIG_DIR or ~/.claude>/projects/*/*.jsonl` -> `bronze/claude_code/<table>/`.

Layout (SOURCES: ../shared/realdata/agents/README.md): a session is `projects/<encoded-cwd>/<session-id>.jsonl`;
a subagent's transcript is `<session-id>/subagents/agent-<id>.jsonl` (new layout) or `agent-<id>.jsonl` beside
the session file (legacy layout, its parent named only by the `sessionId` of its lines). A subagent is an actor
of its own, named by the `subagent_type` its parent's Task call gave it. The shared job (`session_files`) does
the incremental, live-safe and keep-when-deleted rest.
"""

from __future__ import annotations

from pathlib import Path

from warehouse.extract.base import ExtractContext, SourceReport
from warehouse.extract.claude_code.parse import parse_file, subagent_names
from warehouse.extract.eventlog import ParsedLog
from warehouse.extract.session_files import TABLES, Identity, LogFile, ToolSource, run

SOURCE = "claude_code"
PARSER_VERSION = "claude_code-1"  # bump when row shapes change: every file re-extracts
__all__ = ["SOURCE", "TABLES", "discover", "extract"]


def _agent_id(name: str) -> str | None:
    return name[len("agent-"):-len(".jsonl")] if name.startswith("agent-") and name.endswith(".jsonl") else None


def discover(root: Path) -> list[LogFile]:
    """Every session and subagent file under `projects/`, sorted by path."""
    projects = root / "projects"
    out: list[LogFile] = []
    if not projects.is_dir():
        return out
    for p in sorted(projects.glob("*/*.jsonl")):
        agent = _agent_id(p.name)
        out.append(LogFile(p.relative_to(root).as_posix(), p, None if agent else p.stem, agent_id=agent))
    for p in sorted(projects.glob("*/*/subagents/agent-*.jsonl")):
        parent = p.parent.parent.name
        out.append(LogFile(p.relative_to(root).as_posix(), p, None, parent=parent, agent_id=_agent_id(p.name)))
    return out


def identify(f: LogFile, parsed: ParsedLog, names: dict[str, str]) -> Identity | None:
    """A main file is its own session; a subagent file is `<parent>:agent-<id>`, its parent from the path or
    (legacy layout) from its lines' `sessionId`."""
    if f.agent_id is None:
        return Identity(f.session_id or Path(f.rel).stem)
    ids = parsed.header.get("session_ids") or []
    parent = f.parent or (ids[0] if ids else None)
    if parent is None:
        return None
    return Identity(f"{parent}:agent-{f.agent_id}", parent, names.get(f.agent_id) or f"agent-{f.agent_id}")


def extract(ctx: ExtractContext) -> SourceReport:
    root = ctx.paths.claude_home
    return run(ctx, ToolSource(SOURCE, PARSER_VERSION, root, discover(root), parse_file, identify, subagent_names))
