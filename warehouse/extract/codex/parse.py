"""Pure parsing of one OpenAI Codex CLI rollout file (`~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`)
into rows of the common event model (`warehouse.extract.eventlog`).

No file system, no settings: bytes in, rows out. The rules the format forces:

- Three generations. Current files wrap every line as `{timestamp, type, payload}` with `type` one of
  session_meta / turn_context / response_item / event_msg / compacted. Older files open with a bare
  `{id, timestamp, instructions}` line, write response items without the envelope and interleave
  `{"record_type": "state"}` lines.
- The same content is written twice: the person's request as `event_msg:user_message` and as a
  `response_item` user message, the agent's text as `event_msg:agent_message` and as a `response_item`
  assistant message, reasoning summaries as `event_msg:agent_reasoning` and as a `reasoning` item. Which
  copies a file has depends on the front end (Codex Desktop writes requests only as `user_message` and
  answers only as response items; files older than event_msg have response items only), so a message
  is emitted from whichever copy comes first and its twin from the other stream is skipped.
  That keeps a prefix of a file (a live append) parsing to a prefix of the rows.
- Harness-written user/developer items (`<environment_context>`, AGENTS.md instructions, permissions,
  `<turn_aborted>` ...) are `injected`, never `human`.
- Tool calls are `function_call` (JSON-string arguments), `custom_tool_call` (freeform `input`, e.g. the
  apply_patch grammar), `local_shell_call`, `web_search_call`, `tool_search_call`; outputs pair by
  `call_id`. Whether a command failed is only in the output text (`Process exited with code N`,
  `Exit code: N`, `"exit_code": N` metadata) or a `success: false` flag.
- Tokens come from `event_msg:token_count` (no event of its own); Codex repeats the same count, so a
  count whose running total did not move is a duplicate.
"""

from __future__ import annotations

import json
import re
from typing import Any

from warehouse.extract.eventlog import (
    ParsedLog,
    PathFilter,
    apply_exclusions,
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

ENVELOPE_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
RESPONSE_ITEM_TYPES = frozenset({"message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
                                 "custom_tool_call_output", "local_shell_call", "web_search_call",
                                 "tool_search_call", "tool_search_output", "image_generation_call",
                                 "ghost_snapshot", "compaction"})
SKIPPED_ITEMS = frozenset({"ghost_snapshot", "compaction"})  # undo snapshots; remote compaction (see `compacted`)
# event_msg types Codex persists that carry nothing the response items do not (or only telemetry)
SKIPPED_EVENTS = frozenset({
    "token_count", "task_started", "task_complete", "turn_started", "turn_complete", "agent_reasoning",
    "agent_reasoning_raw_content", "agent_reasoning_section_break", "exec_command_begin", "exec_command_end",
    "patch_apply_begin", "patch_apply_end", "web_search_begin", "web_search_end", "mcp_tool_call_begin",
    "mcp_tool_call_end", "view_image_tool_call", "context_compacted", "entered_review_mode", "exited_review_mode",
    "thread_rolled_back", "undo_started", "undo_completed", "turn_aborted", "thread_name_updated",
    "image_generation_begin", "image_generation_end", "item_started", "item_completed", "error", "warning",
    "stream_error", "background_event", "plan_update", "turn_diff", "guardian_assessment",
    "dynamic_tool_call_request", "dynamic_tool_call_response", "collab_agent_spawn_begin", "collab_agent_spawn_end",
    "collab_agent_interaction_begin", "collab_agent_interaction_end", "collab_waiting_begin", "collab_waiting_end",
    "collab_close_begin", "collab_close_end", "collab_resume_begin", "collab_resume_end", "session_configured",
    "shutdown_complete", "deprecation_notice",
})
SUBAGENT_TOOLS = frozenset({"spawn_agent"})
# Whole-message prefixes the harness writes as a user/developer item
INJECTED_PREFIXES = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions for",
                     "<permissions instructions>", "<turn_aborted>", "<user_shell_command>", "<collaboration_mode>",
                     "<skills_instructions>", "<plugins_instructions>", "<INSTRUCTIONS>", "<subagent_notification>",
                     "<model_switch>")
_WRAPPED_TAG = re.compile(r"^<([a-z]+(?:[_ ][a-z]+)+)>.*</\1>$", re.S)  # <snake_case or spaced tag>...</same>
_SHELLS = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash", "/usr/bin/zsh"})
_SKILL = re.compile(r"(?:^|[/\s'\"=])skills/([^/\s'\"\\]+)/SKILL\.md")
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.M)
_PATCH_CHANGE = {"Add": "created", "Update": "modified", "Delete": "deleted"}
_EXIT = re.compile(r"^(?:Process exited with code|Exit code:)\s*(-?\d+)", re.M)
_UUID = re.compile(r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$")
_META_ID = re.compile(r'"payload"\s*:\s*\{\s*"id"\s*:\s*"([^"]+)"')
_BARE_ID = re.compile(r'^\{\s*"id"\s*:\s*"([^"]+)"')


# -- session id ----------------------------------------------------------------------
def session_id_of(file_name: str, data_head: bytes) -> str | None:
    """The id of the first `session_meta` line (a bare first line's `id` in older files), else the UUID
    that ends `rollout-<ts>-<uuid>.jsonl`. `data_head` may stop mid-line (a head read)."""
    lines = data_head.decode("utf-8", errors="replace").split("\n")
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            p = obj.get("payload")
            if obj.get("type") == "session_meta" and isinstance(p, dict) and isinstance(p.get("id"), str):
                return p["id"]
            if i == 0 and "type" not in obj and "record_type" not in obj and isinstance(obj.get("id"), str):
                return obj["id"]
            continue
        # a head cut inside a long first line (base_instructions run to tens of KB)
        m = _META_ID.search(line) if '"session_meta"' in line else (_BARE_ID.match(line) if i == 0 else None)
        if m:
            return m.group(1)
        break
    m = _UUID.search(file_name.replace("\\", "/").rsplit("/", 1)[-1])
    return m.group(1) if m else None


# -- small helpers -------------------------------------------------------------------
def _content_text(content: Any) -> str | None:
    """Join the text parts of a message (`input_text`/`output_text`/`text`); a bare string is text."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts = [b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
             and b.get("type") in ("input_text", "output_text", "text")]
    return "\n".join(parts) if parts else None


def _is_injected_text(text: str) -> bool:
    s = text.strip()
    return s.startswith(INJECTED_PREFIXES) or bool(_WRAPPED_TAG.match(s))


def _user_is_injected(content: Any) -> bool:
    """Every text part is harness-written (one item may carry AGENTS.md + environment_context)."""
    if isinstance(content, str):
        return _is_injected_text(content)
    texts = [b["text"] for b in content or [] if isinstance(b, dict) and isinstance(b.get("text"), str)
             and b["text"].strip()] if isinstance(content, list) else []
    return bool(texts) and all(_is_injected_text(t) for t in texts)


def _key(text: str | None) -> str:
    return " ".join((text or "").split())


def _command(v: Any) -> str | None:
    """A command string from `cmd`/`command` (list form joined; `bash -lc X` -> X)."""
    if isinstance(v, str):
        return v
    if isinstance(v, list) and v and all(isinstance(x, str) for x in v):
        if len(v) == 3 and v[0] in _SHELLS and v[1] in ("-lc", "-c", "-l"):
            return v[2]
        return " ".join(v)
    return None


def _patch_files(patch: str) -> list[tuple[str, str]]:
    """[(path, change)] in patch order; a `Move to:` target counts as created."""
    out: list[tuple[str, str]] = []
    for m in _PATCH_FILE.finditer(patch):
        if m.group(1):
            out.append((m.group(2), _PATCH_CHANGE[m.group(1)]))
        elif m.group(3):
            out.append((m.group(3), "created"))
    return out


def _output_text(out: Any) -> tuple[str | None, bool | None]:
    """(text, success flag if the output carries one)."""
    if isinstance(out, str):
        return out, None
    if isinstance(out, dict):
        success = out.get("success") if isinstance(out.get("success"), bool) else None
        content = out.get("content")
        text = content if isinstance(content, str) else _content_text(content)
        return (text if text is not None else dumps(out)), success
    if isinstance(out, list):
        return _content_text(out) or dumps(out), None
    return to_str(out), None


def _failed(text: str | None, success: bool | None) -> bool:
    """Exit code != 0 (header line or JSON metadata) or `success: false`."""
    if success is False:
        return True
    if not text:
        return False
    s = text.lstrip()
    if s.startswith("{"):
        try:
            obj = json.loads(s)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            meta = obj.get("metadata")
            code = to_int(meta.get("exit_code")) if isinstance(meta, dict) else to_int(obj.get("exit_code"))
            if code is not None:
                return code != 0
            if obj.get("success") is False:
                return True
    head = s.split("\nOutput:\n", 1)[0][:2000]  # the exit line sits in the header, never in the output body
    m = _EXIT.search(head)
    return bool(m and int(m.group(1)) != 0)


# -- per-item handlers ---------------------------------------------------------------
def _tool_call(ev: dict[str, Any], p: dict[str, Any], ptype: str) -> str | None:
    """Fill a tool/call event; returns the patch text when the call applies a patch."""
    ev.update(kind="tool/call", role="tool_call")
    patch: str | None = None
    if ptype == "custom_tool_call":
        name = to_str(p.get("name"))
        raw = to_str(p.get("input"))
        ev.update(tool_name=name, call_id=to_str(p.get("call_id")), arguments=raw)
        if name == "apply_patch" and raw:
            patch = raw
    elif ptype == "local_shell_call":
        action = p.get("action") if isinstance(p.get("action"), dict) else {}
        ev.update(tool_name="local_shell", call_id=to_str(p.get("call_id") or p.get("id")),
                  arguments=dumps(action) if action else None, command=_command(action.get("command")))
    elif ptype == "web_search_call":
        action = p.get("action") if isinstance(p.get("action"), dict) else {}
        query = action.get("query") or p.get("query") or action.get("url")
        ev.update(tool_name="web_search", call_id=to_str(p.get("call_id") or p.get("id")),
                  arguments=dumps(action) if action else None, text=to_str(query))
    elif ptype == "tool_search_call":
        ev.update(tool_name="tool_search", call_id=to_str(p.get("call_id")), arguments=to_str(p.get("arguments")))
    elif ptype == "image_generation_call":  # `result` is the image (base64): not kept
        ev.update(tool_name="image_generation", call_id=to_str(p.get("id")), text=to_str(p.get("revised_prompt")))
    else:  # function_call
        name = to_str(p.get("name"))
        raw, args, bad = decode_args(p.get("arguments"))
        ev.update(tool_name=name, call_id=to_str(p.get("call_id")), arguments=raw, arguments_bad=bad)
        if isinstance(args, dict):
            ev["command"] = _command(args.get("cmd")) or _command(args.get("command"))
            path = args.get("file_path") or args.get("path")
            if isinstance(path, str) and path:
                ev["file_path"] = path
            if name == "apply_patch" and isinstance(args.get("input"), str):
                patch = args["input"]
            if name in SUBAGENT_TOOLS:
                ev["target_name"] = to_str(args.get("agent_type") or args.get("name"))
                ev["text"] = to_str(args.get("message") or args.get("prompt"))
    cmd = ev.get("command")
    if patch is None and cmd and "*** Begin Patch" in cmd:  # `apply_patch` run through the shell
        patch = cmd
    if patch is None:
        for s in (cmd, ev.get("file_path")):
            m = _SKILL.search(s) if s else None
            if m:
                ev["skill_name"], ev["skill_via"] = m.group(1), "read"
                break
    return patch


def _tool_result(ev: dict[str, Any], p: dict[str, Any], ptype: str, call_names: dict[str, str | None]) -> None:
    call_id = to_str(p.get("call_id"))
    if ptype == "tool_search_output":
        text, success = to_str(p.get("tools")), None
    else:
        text, success = _output_text(p.get("output"))
    ev.update(kind="tool/result", role="tool_result", call_id=call_id, tool_name=call_names.get(call_id or ""),
              text=text, is_error=_failed(text, success))


def _texts(items: Any) -> list[str]:
    return [b["text"] for b in items if isinstance(b, dict) and isinstance(b.get("text"), str) and b["text"]] \
        if isinstance(items, list) else []


def _reasoning_text(p: dict[str, Any]) -> str | None:
    """Summary texts; else raw reasoning text (open-weight models); None when only encrypted."""
    return "\n\n".join(_texts(p.get("summary")) or _texts(p.get("content"))) or None


# -- the parser ------------------------------------------------------------------
class _State:
    """What later lines need from earlier ones."""

    def __init__(self) -> None:
        self.model: str | None = None
        self.turn = 0  # human requests so far
        self.pending: dict[str, tuple[str, str, int]] = {}  # role -> (stream, text key, events at emission)
        self.last_assistant: dict[str, Any] | None = None
        self.call_names: dict[str, str | None] = {}
        self.seen: set[tuple[str, str]] = set()
        self.hidden_calls: set[str] = set()
        self.last_total: tuple[int | None, int | None] | None = None
        self.tokens_in = 0
        self.tokens_out = 0
        self.total: tuple[int | None, int | None] | None = None


def parse_file(session_id: str, data: bytes, path_excluded: PathFilter | None = None,
               capped: bool = True) -> ParsedLog:
    """Turn the bytes of one rollout file into event/artifact rows plus per-session stats.

    `capped`: bound each text field at TEXT_CAP (what is stored); cards read whole texts (False).
    """
    excluded = path_excluded or (lambda _p: False)
    lines, bad, truncated = split_lines(data)
    out = ParsedLog()
    header: dict[str, Any] = dict(cwd=None, git_branch=None, tool_version=None, originator=None, created_at=None,
                                  session_ids=[], title=None, model=None, session_id=None)
    st: dict[str, Any] = dict(events=0, events_replayed=0, events_duplicate=0, events_unknown=0, lines_bad=bad,
                              truncated_tail=truncated, human_messages=0, injected_messages=0, tool_calls=0,
                              tool_errors=0, input_tokens=0, output_tokens=0, skill_uses=0, compactions=0,
                              model=None, title=None, goal=None, first_time=None, last_time=None, turns=0,
                              lines_skipped=0, unknown_types=[], subagent_calls=0)
    s = _State()
    ids: set[str] = set()
    unknown: set[str] = set()
    for idx, (line_no, obj) in enumerate(lines):
        top = obj.get("type")
        payload = obj.get("payload")
        t = to_ms(obj.get("timestamp"))
        if top is not None and not isinstance(top, str):
            st["events_unknown"] += 1
            unknown.add(to_str(top) or "")
            continue
        if top in ENVELOPE_TYPES:
            p = payload if isinstance(payload, dict) else {}
        elif isinstance(top, str) and top in RESPONSE_ITEM_TYPES and not isinstance(payload, dict):
            top, p = "response_item", obj  # older files: the item itself, no envelope
        elif obj.get("record_type") is not None:  # older files: {"record_type": "state", ...}
            if obj.get("record_type") == "state":
                st["lines_skipped"] += 1
            else:
                st["events_unknown"] += 1
                unknown.add(f"record_type:{obj.get('record_type')}")
            continue
        elif idx == 0 and top is None and "id" in obj:  # older files: bare {id, timestamp, instructions}
            _meta(header, ids, obj, t)
            st["lines_skipped"] += 1
            continue
        else:
            st["events_unknown"] += 1
            unknown.add(str(top))
            continue

        if top == "session_meta":
            _meta(header, ids, p, t)
            st["lines_skipped"] += 1
            continue
        if top == "turn_context":
            s.model = to_str(p.get("model")) or s.model
            st["lines_skipped"] += 1
            continue
        ev: dict[str, Any] = {"session_id": session_id, "seq": None, "line_no": line_no, "time": t, "kind": None,
                              "role": "other", "source_kind": None, "message_id": None, "call_id": None}
        patch: str | None = None
        ptype = to_str(p.get("type")) or ""
        if top == "event_msg":
            verdict = _event_msg(ev, p, ptype, s, st, len(out.events))
            if verdict == "unknown":
                st["events_unknown"] += 1
                unknown.add(f"event_msg:{ptype}")
                continue
            if verdict == "skip":
                st["lines_skipped"] += 1
                continue
        elif top == "compacted":
            ev.update(kind="compaction/completed", role="system", text=to_str(p.get("message")) or None)
        else:  # response_item
            if ptype not in RESPONSE_ITEM_TYPES:
                st["events_unknown"] += 1
                unknown.add(f"response_item:{ptype}")
                continue
            if ptype in SKIPPED_ITEMS:
                st["lines_skipped"] += 1
                continue
            if ptype == "message":
                if not _message(ev, p, s, len(out.events)):
                    st["lines_skipped"] += 1
                    continue
            elif ptype == "reasoning":
                reasoning = _reasoning_text(p)
                if not reasoning:  # encrypted only
                    st["lines_skipped"] += 1
                    continue
                ev.update(kind="assistant/message", role="assistant", text=None, reasoning=reasoning, model=s.model,
                          message_id=to_str(p.get("id")))
            elif ptype.endswith("_output"):
                _tool_result(ev, p, ptype, s.call_names)
            else:
                patch = _tool_call(ev, p, ptype)
        ev["source_kind"] = f"{top}:{ptype}" if top != "compacted" else "compacted"
        ident = (ev["kind"], ev["call_id"]) if ev["kind"] in ("tool/call", "tool/result") and ev["call_id"] else None
        if ident and ident in s.seen:
            st["events_duplicate"] += 1
            continue
        if ident:
            s.seen.add(ident)
        if ev["kind"] == "tool/call" and ev["call_id"]:
            s.call_names[ev["call_id"]] = ev.get("tool_name")
        if ev["role"] == "human":
            s.turn += 1
            s.last_assistant = None
        elif ev["kind"] == "assistant/message":
            s.last_assistant = ev
        ev["turn"] = s.turn or None
        ev["seq"] = len(out.events) + 1
        files = _patch_files(patch) if patch else []
        if files and not ev.get("file_path"):
            ev["file_path"] = files[0][0]
        apply_exclusions(ev, excluded, header["cwd"], s.hidden_calls, [f for f, _c in files])
        if files:
            _artifacts(out, ev, files, excluded, header["cwd"])
        if capped:
            cap_event(ev)
        _count(st, ev)
        out.events.append(ev)

    header["session_ids"] = sorted(ids)
    header["model"] = s.model
    out.header = header
    if s.total is not None:
        st["input_tokens"], st["output_tokens"] = s.total[0] or 0, s.total[1] or 0
    else:
        st["input_tokens"], st["output_tokens"] = s.tokens_in, s.tokens_out
    st["model"] = s.model
    st["turns"] = st["human_messages"]
    st["unknown_types"] = sorted(unknown)
    out.stats = st
    return out


def _meta(header: dict[str, Any], ids: set[str], p: dict[str, Any], line_time: int | None) -> None:
    sid = to_str(p.get("id"))
    if sid:
        ids.add(sid)
    if header["created_at"] is not None or header["session_id"] is not None:
        return  # the first session_meta describes this file; later ones (forks, resumes) add only their id
    git = p.get("git") if isinstance(p.get("git"), dict) else {}
    header.update(session_id=sid, cwd=to_str(p.get("cwd")), git_branch=to_str(git.get("branch")),
                  tool_version=to_str(p.get("cli_version")), originator=to_str(p.get("originator")),
                  created_at=to_ms(p.get("timestamp")) or line_time)


def _pair(s: _State, role: str, stream: str, key: str, n_events: int) -> bool:
    """True = this message is the other stream's copy of the one just emitted (skip it)."""
    prev = s.pending.get(role)
    if prev and prev[0] != stream and (prev[1] == key or prev[2] == n_events):
        del s.pending[role]
        return True
    s.pending[role] = (stream, key, n_events + 1)
    return False


def _message(ev: dict[str, Any], p: dict[str, Any], s: _State, n_events: int) -> bool:
    """A response_item message; False = nothing to emit (an empty message or the twin of an event_msg)."""
    role = to_str(p.get("role")) or ""
    content = p.get("content")
    text = _content_text(content)
    ev["message_id"] = to_str(p.get("id"))
    if role == "assistant":
        if not text or _pair(s, "assistant", "response_item", _key(text), n_events):
            return False
        ev.update(kind="assistant/message", role="assistant", text=text, model=s.model)
        return True
    if role == "user" and not _user_is_injected(content):
        if _pair(s, "user", "response_item", _key(text), n_events):
            return False
        ev.update(kind="user/message", role="human", text=text)
        return True
    if text is None:
        return False
    ev.update(kind="user/message", role="injected", text=text)  # developer/system items, harness user items
    return True


def _event_msg(ev: dict[str, Any], p: dict[str, Any], ptype: str, s: _State, st: dict[str, Any],
               n_events: int) -> str:
    """'emit', 'skip' or 'unknown' for one event_msg line (token counts are booked here)."""
    if ptype == "user_message":
        text = to_str(p.get("message"))
        kind = p.get("kind")
        if (kind not in (None, "plain")) or (text and _is_injected_text(text)):
            return "skip"  # older files echoed harness items here too; the response item carries them
        if _pair(s, "user", "event_msg", _key(text), n_events):
            return "skip"
        ev.update(kind="user/message", role="human", text=text)
        return "emit"
    if ptype == "agent_message":
        text = to_str(p.get("message"))
        if not text or _pair(s, "assistant", "event_msg", _key(text), n_events):
            return "skip"
        ev.update(kind="assistant/message", role="assistant", text=text, model=s.model)
        return "emit"
    if ptype == "token_count":
        _tokens(p, s)
        return "skip"
    if ptype == "thread_name_updated" and to_str(p.get("thread_name")):
        st["title"] = to_str(p.get("thread_name"))
    return "skip" if ptype in SKIPPED_EVENTS else "unknown"


def _tokens(p: dict[str, Any], s: _State) -> None:
    info = p.get("info")
    if not isinstance(info, dict):
        return
    total = info.get("total_token_usage") if isinstance(info.get("total_token_usage"), dict) else None
    last = info.get("last_token_usage") if isinstance(info.get("last_token_usage"), dict) else None
    tot = (to_int(total.get("input_tokens")), to_int(total.get("output_tokens"))) if total else None
    if tot is not None:
        if tot == s.last_total:
            return  # the same count written again
        s.last_total = s.total = tot
    if last is None:
        return
    inp, outp = to_int(last.get("input_tokens")) or 0, to_int(last.get("output_tokens")) or 0
    s.tokens_in += inp
    s.tokens_out += outp
    ev = s.last_assistant
    if ev is not None:
        ev["input_tokens"] = (ev.get("input_tokens") or 0) + inp
        ev["output_tokens"] = (ev.get("output_tokens") or 0) + outp


def _artifacts(out: ParsedLog, ev: dict[str, Any], files: list[tuple[str, str]], excluded: PathFilter,
               cwd: Any) -> None:
    for path, change in files:
        if is_excluded(path, excluded, cwd):
            continue
        out.artifacts.append({"session_id": ev["session_id"], "seq": ev["seq"], "line_no": ev["line_no"],
                              "time": ev["time"], "path": path, "change": change, "description": None,
                              "call_id": ev["call_id"]})


def _count(st: dict[str, Any], ev: dict[str, Any]) -> None:
    count_event(st, ev)
    if ev["role"] == "human" and st["goal"] is None and ev.get("text"):
        st["goal"] = ev["text"]
    elif ev["role"] == "tool_call" and ev.get("tool_name") in SUBAGENT_TOOLS:
        st["subagent_calls"] += 1
