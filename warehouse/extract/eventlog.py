"""The common event model of agent session logs: the row shapes every session extractor lands
(DSH, Claude Code, Codex), the value coercions and the text cap they share.

An extractor maps its own lines onto these rows (`kind`, `role`, `tool_name`, `command`, `file_path`,
`skill_name`, `target_name`, tokens), so the staging models read every session source the same way.
No file system, no settings here: pure functions and schemas.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import polars as pl

from warehouse.core.redact import redact

TS = pl.Datetime("ms", "UTC")
# One event's text field keeps at most TEXT_CAP characters (a 5 MB tool output would otherwise add
# ~21 MB to a generation): the head, then a marker naming the rest's size and where it stays (the
# source log, session + seq). Cards read the full text from the source on demand.
TEXT_CAP = 64_000
CAPPED_FIELDS = ("text", "reasoning", "arguments", "command", "file_path", "data_json")
_CAP_MARGIN = 4_096  # redact a little past the cut, so no secret is left half-cut below its rule's length

EVENTS_SCHEMA: dict[str, pl.DataType] = {
    "session_id": pl.String(), "seq": pl.Int64(), "line_no": pl.Int64(), "time": TS, "kind": pl.String(),
    "role": pl.String(), "source_kind": pl.String(), "message_id": pl.String(), "turn": pl.Int64(),
    "step": pl.Int64(), "text": pl.String(), "reasoning": pl.String(), "tool_name": pl.String(),
    "call_id": pl.String(), "arguments": pl.String(), "arguments_bad": pl.Boolean(), "command": pl.String(),
    "file_path": pl.String(), "skill_name": pl.String(), "skill_via": pl.String(), "target_name": pl.String(),
    "is_error": pl.Boolean(), "files_json": pl.String(), "model": pl.String(), "input_tokens": pl.Int64(),
    "output_tokens": pl.Int64(), "finish_reason": pl.String(), "data_json": pl.String(),
}
ARTIFACTS_SCHEMA: dict[str, pl.DataType] = {
    "session_id": pl.String(), "seq": pl.Int64(), "line_no": pl.Int64(), "time": TS, "path": pl.String(),
    "change": pl.String(), "description": pl.String(), "call_id": pl.String(),
}

SESSIONS_SCHEMA: dict[str, pl.DataType] = {
    "session_id": pl.String(), "workspace_id": pl.String(), "workspace_path": pl.String(),
    "workspace_title": pl.String(), "rel_path": pl.String(), "cwd": pl.String(), "created_at": TS,
    "parent_session": pl.String(), "agent_preset": pl.String(), "title": pl.String(), "goal": pl.String(),
    "first_time": TS, "last_time": TS, "events": pl.Int64(), "events_replayed": pl.Int64(),
    "events_duplicate": pl.Int64(), "events_unknown": pl.Int64(), "lines_bad": pl.Int64(),
    "truncated_tail": pl.Boolean(), "frames": pl.Int64(), "turns": pl.Int64(), "human_messages": pl.Int64(),
    "injected_messages": pl.Int64(), "tool_calls": pl.Int64(), "tool_errors": pl.Int64(),
    "skill_uses": pl.Int64(), "compactions": pl.Int64(), "artifacts": pl.Int64(), "input_tokens": pl.Int64(),
    "output_tokens": pl.Int64(), "model": pl.String(), "proj_present": pl.Boolean(), "proj_title": pl.String(),
    "proj_workspace": pl.String(), "proj_updated_at": TS, "proj_events": pl.Int64(),
    "proj_tool_calls": pl.Int64(), "proj_input_tokens": pl.Int64(), "proj_output_tokens": pl.Int64(),
    "agent_team_json": pl.String(), "team_lead": pl.String(), "subagent_parent": pl.String(),
    "subagent_name": pl.String(), "todos_json": pl.String(), "plan_json": pl.String(), "archived": pl.Boolean(),
    "pinned": pl.Boolean(), "revision": pl.String(),
}

PathFilter = Callable[[str], bool]  # True = path is excluded


# -- value coercion ------------------------------------------------------------------
def to_ms(v: Any) -> int | None:
    """Epoch ms from an int/float/digit string/ISO-8601 string; anything else -> None."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int | float):
        return int(v)
    if isinstance(v, str):
        s = v.strip()
        if s.lstrip("-").isdigit():
            return int(s)
        try:
            return int(datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp() * 1000)
        except ValueError:
            return None
    return None


def to_int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return int(v)
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        return int(v)
    return None


def to_str(v: Any) -> str | None:
    if v is None:
        return None
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True, ensure_ascii=False)


def to_bool(v: Any) -> bool | None:
    return v if isinstance(v, bool) else None


def dumps(v: Any) -> str:
    return json.dumps(v, sort_keys=True, ensure_ascii=False)


def cap(s: str | None, session_id: str, seq: int | None) -> str | None:
    """A bounded head (always redacted: a secret cut in half would slip past its rule) and a marker."""
    if not s or len(s) <= TEXT_CAP:
        return s
    head = (redact(s[:TEXT_CAP + _CAP_MARGIN]) or "")[:TEXT_CAP]
    return f"{head}\n[TRUNCATED: {len(s) - TEXT_CAP} more chars in the source, session {session_id} seq {seq}]"


def cap_event(ev: dict[str, Any]) -> None:
    for k in CAPPED_FIELDS:
        v = ev.get(k)
        if isinstance(v, str) and len(v) > TEXT_CAP:
            ev[k] = cap(v, ev["session_id"], ev.get("seq"))


def decode_args(raw: Any) -> tuple[str | None, Any, bool]:
    """(raw string, decoded value, bad) — tool-call arguments are a JSON-encoded string on the wire."""
    if raw is None:
        return None, None, False
    if not isinstance(raw, str):
        return dumps(raw), raw, False
    try:
        return raw, json.loads(raw), False
    except ValueError:
        return raw, None, True


def is_excluded(path: str, excluded: PathFilter, cwd: Any) -> bool:
    """`exclude.paths`/`file_patterns` on the path as written, or resolved against the session's `cwd`."""
    if excluded(path):
        return True
    return bool(isinstance(cwd, str) and cwd and not path.startswith("/") and excluded(f"{cwd.rstrip('/')}/{path}"))


def apply_exclusions(ev: dict[str, Any], excluded: PathFilter, cwd: Any, hidden_calls: set[str],
                     carried: Sequence[str] = ()) -> None:
    """An excluded file's path, the call arguments that carry its content, and its result's text are dropped.
    `carried`: further files the call's arguments carry (a Codex patch); if any is excluded, so is the call,
    and its command too (a patch run through the shell carries the file's content)."""
    fp = ev.get("file_path")
    if (fp and is_excluded(fp, excluded, cwd)) or any(is_excluded(f, excluded, cwd) for f in carried):
        ev.update(file_path=None, arguments=None, text=None)
        if carried:
            ev["command"] = None
        if ev["call_id"]:
            hidden_calls.add(ev["call_id"])
    elif ev["role"] == "tool_result" and ev["call_id"] in hidden_calls:
        ev["text"] = None


def count_event(st: dict[str, Any], ev: dict[str, Any]) -> None:
    """The per-session counts every session parser keeps alike (its own extras — tokens, goal, title,
    turns — it adds itself): events, first/last time, requests, harness text, calls, failed results,
    skill uses, compactions."""
    st["events"] += 1
    t = ev["time"]
    if t is not None:
        st["first_time"] = t if st["first_time"] is None else min(st["first_time"], t)
        st["last_time"] = t if st["last_time"] is None else max(st["last_time"], t)
    role = ev["role"]
    if role == "human":
        st["human_messages"] += 1
    elif role == "injected":
        st["injected_messages"] += 1
    elif role == "tool_call":
        st["tool_calls"] += 1
    elif role == "tool_result" and ev["is_error"]:
        st["tool_errors"] += 1
    if ev.get("skill_name"):
        st["skill_uses"] += 1
    if ev["kind"] == "compaction/completed":
        st["compactions"] += 1


def blocks_text(content: Any, block_type: str = "text") -> str | None:
    """Join the `text` of content blocks of one type; a bare string counts as text."""
    if isinstance(content, str):
        return content if block_type == "text" else None
    if not isinstance(content, list):
        return None
    parts = [b["text"] for b in content
             if isinstance(b, dict) and b.get("type") == block_type and isinstance(b.get("text"), str)]
    return "\n".join(parts) if parts else None


# -- result -----------------------------------------------------------------------
@dataclass
class ParsedLog:
    header: dict[str, Any] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    artifacts: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)


def last_activity_ms(parsed: ParsedLog) -> int | None:
    """A session's last activity (epoch ms) for retention: its newest event time."""
    last = parsed.stats.get("last_time")
    if last is None:
        return None
    return int(last.timestamp() * 1000) if hasattr(last, "timestamp") else to_int(last)


def split_lines(text: bytes) -> tuple[list[tuple[int, dict[str, Any]]], int, bool]:
    """Parse JSON lines -> ([(line_no, obj)], bad_lines, truncated_tail). An unterminated
    last line that does not parse is a torn append: counted, never fatal."""
    lines = text.decode("utf-8", errors="replace").split("\n")
    out: list[tuple[int, dict[str, Any]]] = []
    bad, truncated = 0, False
    last = len(lines) - 1
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            bad += 1
            truncated = truncated or i == last
            continue
        out.append((i + 1, obj))
    return out, bad, truncated


# -- frames -----------------------------------------------------------------------
def to_frame(rows: list[dict[str, Any]], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Rows -> DataFrame with an explicit schema; epoch-ms ints become UTC datetimes."""
    raw = {k: (pl.Int64() if isinstance(v, pl.Datetime) else v) for k, v in schema.items()}
    df = pl.from_dicts(rows, schema=raw) if rows else pl.DataFrame(schema=raw)
    casts = [pl.col(k).cast(v) for k, v in schema.items() if isinstance(v, pl.Datetime)]
    return df.with_columns(casts) if casts else df
