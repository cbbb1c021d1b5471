"""Pure parsing of one DSH session log (`session.v4.jsonl.zstd`) into lake rows.

No file system, no settings: bytes in, rows out, so the tricky rules of SOURCES.md §1.1
(multi-frame zstd, truncated tails, replayed parent history, harness injections,
JSON-encoded tool arguments) are testable in isolation. `job.py` adds projection,
registry, exclusions and incrementality around it.
"""

from __future__ import annotations

import io
import re
from typing import Any

import zstandard

from warehouse.extract.eventlog import (
    ParsedLog,
    PathFilter,
    apply_exclusions,
    blocks_text,
    cap_event,
    count_event,
    decode_args,
    dumps,
    is_excluded,
    split_lines,
    to_int,
    to_ms,
    to_str,
)

HUMAN_SOURCE = "user"  # the only data.source.kind that is a human
FILE_TOOLS = frozenset({"write", "edit", "multi_edit"})
TEAM_TOOLS = {  # tool -> (argument keys naming the target, argument keys carrying text)
    "spawn_teammate": (("name",), ("description", "prompt")),
    "send_message": (("target",), ("message",)),
    "team_task_create": (("owner",), ("title", "details")),
    "subagent": (("name",), ("description", "prompt")),
}
SYSTEM_KINDS = frozenset({"compaction/started", "compaction/completed", "goal/change", "session/title",
                          "subagent/catalog"})
_SLASH = re.compile(r"/([A-Za-z0-9][A-Za-z0-9_.:\-]*)(?=\s|$)")

class CorruptLog(Exception):
    """The file is not a readable zstd stream (message names no content)."""


# -- zstd -------------------------------------------------------------------------
def decode(raw: bytes) -> bytes:
    """Decompress every frame; a torn last frame (live append) yields what was written so far."""
    if not raw:
        return b""
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw), read_across_frames=True)
        return reader.read()
    except zstandard.ZstdError as e:
        raise CorruptLog(f"zstd decode failed: {e}") from e


def frame_info(raw: bytes) -> tuple[int, bool]:
    """(frames, torn) by walking frame and block headers (no decompression); torn = the last
    frame is incomplete, i.e. a live append was cut mid-write."""
    pos, n, size = 0, 0, len(raw)
    while pos < size:
        if pos + 4 > size:
            return n + 1, True
        magic = int.from_bytes(raw[pos:pos + 4], "little")
        n += 1
        if 0x184D2A50 <= magic <= 0x184D2A5F:  # skippable frame
            pos += 8 + int.from_bytes(raw[pos + 4:pos + 8], "little")
            continue
        try:
            head = zstandard.frame_header_size(raw[pos:pos + 18])
            checksum = zstandard.get_frame_parameters(raw[pos:pos + 18]).has_checksum
        except zstandard.ZstdError:
            return n, True
        pos += head
        while True:
            if pos + 3 > size:
                return n, True
            bh = int.from_bytes(raw[pos:pos + 3], "little")
            last, btype, bsize = bh & 1, (bh >> 1) & 3, bh >> 3
            pos += 3 + (1 if btype == 1 else bsize)
            if last:
                pos += 4 if checksum else 0
                break
    return n, pos > size


# -- per-kind handlers ------------------------------------------------------------
def _user(ev: dict[str, Any], d: dict[str, Any]) -> None:
    src = d.get("source")
    kind = src.get("kind") if isinstance(src, dict) else None
    ev["source_kind"] = to_str(kind)
    ev["message_id"] = to_str(d.get("id"))
    ev["text"] = blocks_text(d.get("content"))
    ev["role"] = "human" if kind == HUMAN_SOURCE else "injected"
    if ev["role"] == "human" and ev["text"]:
        m = _SLASH.match(ev["text"].lstrip())
        if m:
            ev["skill_name"], ev["skill_via"] = m.group(1), "slash"


def _assistant(ev: dict[str, Any], d: dict[str, Any]) -> None:
    msg = d.get("message")
    content = msg.get("content") if isinstance(msg, dict) else d.get("content")
    usage = d.get("usage") if isinstance(d.get("usage"), dict) else {}
    ev.update(role="assistant", turn=to_int(d.get("turn")), step=to_int(d.get("step")),
              message_id=to_str(d.get("id")), text=blocks_text(content),
              reasoning=blocks_text(content, "reasoning"), model=to_str(d.get("model")),
              input_tokens=to_int(usage.get("input_tokens")), output_tokens=to_int(usage.get("output_tokens")),
              finish_reason=to_str(d.get("finishReason")))


def _tool_call(ev: dict[str, Any], d: dict[str, Any]) -> None:
    name = to_str(d.get("name"))
    raw, args, bad = decode_args(d.get("arguments"))
    ev.update(role="tool_call", tool_name=name, call_id=to_str(d.get("callId")), arguments=raw,
              arguments_bad=bad)
    if not isinstance(args, dict):
        return
    if name == "skill" and isinstance(args.get("name"), str):
        ev["skill_name"], ev["skill_via"] = args["name"], "tool"
    elif name == "bash":
        ev["command"] = to_str(args.get("command"))
    elif name in TEAM_TOOLS:
        target_keys, text_keys = TEAM_TOOLS[name]
        ev["target_name"] = next((to_str(args[k]) for k in target_keys if args.get(k)), None)
        texts = [args[k] for k in text_keys if isinstance(args.get(k), str) and args[k]]
        ev["text"] = "\n\n".join(texts) or None
    path = args.get("file_path") if name in FILE_TOOLS else args.get("file_path") or args.get("path")
    if isinstance(path, str) and path:
        ev["file_path"] = path


def _tool_result(ev: dict[str, Any], d: dict[str, Any]) -> None:
    ev.update(role="tool_result", tool_name=to_str(d.get("name")), call_id=to_str(d.get("callId")),
              is_error=bool(d.get("isError")), text=blocks_text(d.get("content")))


def _files(d: dict[str, Any], meta_key: str) -> list[dict[str, str | None]]:
    files = d.get("files")
    out = []
    for f in files if isinstance(files, list) else []:
        if isinstance(f, dict) and isinstance(f.get("path"), str) and f["path"]:
            out.append({"path": f["path"], meta_key: to_str(f.get(meta_key))})
    return out


def _system(ev: dict[str, Any], kind: str, d: dict[str, Any]) -> None:
    ev["role"] = "system"
    if kind == "compaction/completed":
        ev["text"] = to_str(d.get("summary"))
    elif kind == "goal/change":
        ev["text"] = to_str(d.get("goal"))
    elif kind == "session/title":
        ev["text"] = to_str(d.get("title"))
    elif kind == "subagent/catalog":
        agents = [a for a in d.get("agents") or [] if isinstance(a, dict)]
        ev["files_json"] = dumps([{"name": to_str(a.get("name")), "description": to_str(a.get("description"))}
                                  for a in agents])
        ev["text"] = "\n".join(f"{a.get('name')}: {a.get('description') or ''}".strip() for a in agents) or None


def _identity(kind: str, ev: dict[str, Any]) -> tuple[Any, ...] | None:
    """Globally unique ids (uuid) dedupe across replay; (turn, step) only within the session's own events."""
    if kind == "user/message" and ev["message_id"]:
        return ("msg", ev["message_id"])
    if kind in ("tool/call", "tool/result", "deliverables/presented") and ev["call_id"]:
        return (kind, ev["call_id"])
    return None


# -- the parser ------------------------------------------------------------------
def parse_log(session_id: str, text: bytes, path_excluded: PathFilter | None = None,
              capped: bool = True) -> ParsedLog:
    """Turn decompressed log bytes into event/artifact rows plus per-session stats.

    `capped`: bound each text field at TEXT_CAP (what is stored); cards read whole texts (False).
    """
    excluded = path_excluded or (lambda _p: False)
    lines, bad, truncated = split_lines(text)
    out = ParsedLog()
    if lines and lines[0][1].get("type") == "session":
        out.header = lines[0][1]
        lines = lines[1:]
    created = to_ms(out.header.get("createdAt"))
    st: dict[str, Any] = dict(events=0, events_replayed=0, events_duplicate=0, events_unknown=0, lines_bad=bad,
                              truncated_tail=truncated, human_messages=0, injected_messages=0, tool_calls=0,
                              tool_errors=0, input_tokens=0, output_tokens=0, skill_uses=0, compactions=0,
                              model=None, title=None, goal=None, first_time=None, last_time=None)
    seen_ids: set[tuple[Any, ...]] = set()
    seen_steps: set[tuple[int | None, int | None]] = set()
    hidden_calls: set[str] = set()
    turns: set[int] = set()
    for line_no, obj in lines:
        kind = to_str(obj.get("type")) or ""
        d = obj.get("data") if isinstance(obj.get("data"), dict) else {}
        t = to_ms(obj.get("time"))
        ev: dict[str, Any] = {"session_id": session_id, "seq": to_int(obj.get("seq")), "line_no": line_no,
                              "time": t, "kind": kind, "role": "other", "message_id": None, "call_id": None}
        if kind == "user/message":
            _user(ev, d)
        elif kind == "assistant/message":
            _assistant(ev, d)
        elif kind == "tool/call":
            _tool_call(ev, d)
        elif kind == "tool/result":
            _tool_result(ev, d)
        elif kind in ("deliverables/presented", "workspace/changes"):
            ev["role"], ev["call_id"] = "artifact", to_str(d.get("callId"))
        elif kind in SYSTEM_KINDS:
            _system(ev, kind, d)
        ident = _identity(kind, ev)
        if created is not None and t is not None and t < created:
            st["events_replayed"] += 1
            if ident:
                seen_ids.add(ident)
            continue
        step_key = (ev.get("turn"), ev.get("step")) if kind == "assistant/message" else None
        if (ident and ident in seen_ids) or (step_key and step_key != (None, None) and step_key in seen_steps):
            st["events_duplicate"] += 1
            continue
        if ident:
            seen_ids.add(ident)
        if step_key:
            seen_steps.add(step_key)
        apply_exclusions(ev, excluded, out.header.get("cwd"), hidden_calls)
        if ev["role"] == "artifact":
            _artifacts(out, ev, kind, d, excluded, out.header.get("cwd"))
        if ev["role"] == "other":
            st["events_unknown"] += 1
            ev["data_json"] = dumps(d) if d else None
        if capped:
            cap_event(ev)
        _count(st, ev, kind, turns)
        out.events.append(ev)
    st["turns"] = len(turns)
    out.stats = st
    return out


def _artifacts(out: ParsedLog, ev: dict[str, Any], kind: str, d: dict[str, Any], excluded: PathFilter,
               cwd: Any) -> None:
    presented = kind == "deliverables/presented"
    files = [f for f in _files(d, "description" if presented else "change")
             if not is_excluded(f["path"] or "", excluded, cwd)]
    ev["files_json"] = dumps(files)
    ev["text"] = "\n".join(f["path"] + (f" — {f['description']}" if presented and f["description"] else "")
                           for f in files) or None
    for f in files:
        out.artifacts.append({"session_id": ev["session_id"], "seq": ev["seq"], "line_no": ev["line_no"],
                              "time": ev["time"], "path": f["path"],
                              "change": "presented" if presented else f.get("change"),
                              "description": f.get("description") if presented else None,
                              "call_id": ev["call_id"]})


def _count(st: dict[str, Any], ev: dict[str, Any], kind: str, turns: set[int]) -> None:
    count_event(st, ev)
    if ev["role"] == "assistant":
        st["input_tokens"] += ev["input_tokens"] or 0
        st["output_tokens"] += ev["output_tokens"] or 0
        st["model"] = ev["model"] or st["model"]
        if ev["turn"] is not None:
            turns.add(ev["turn"])
    if kind == "session/title" and ev["text"]:
        st["title"] = ev["text"]
    elif kind == "goal/change" and ev["text"]:
        st["goal"] = ev["text"]


