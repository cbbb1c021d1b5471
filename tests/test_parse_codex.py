"""The Codex CLI rollout parser against the three real rollout files (read where they lie) and small
synthetic rollouts built here as bytes.

The per-file constants below were counted by hand from the files (grep/jq over the raw lines), not by a
second parser.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from warehouse.extract.codex.parse import parse_file, session_id_of
from warehouse.extract.eventlog import ARTIFACTS_SCHEMA, EVENTS_SCHEMA, ParsedLog, to_frame

REAL = Path(__file__).resolve().parents[2] / "shared" / "realdata" / "agents" / "codex" / "codemie-code"
EXEC = "rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl"  # codex_exec 0.77.0
TUI = "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"  # codex-tui 0.125.0
DESKTOP = "rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"  # Codex Desktop 0.128.0-alpha.1

# file -> (session id, human requests, tool calls, tool errors, skill uses, model)
EXPECTED = {
    # 1 request; 3 `shell` calls, all "exit_code":0; no SKILL.md read; 4 turn_context lines
    EXEC: ("019b7f94-51b4-7593-922e-ba12b5b73b52", 1, 3, 0, 0, "gpt-5-1-codex-2025-11-13"),
    # 2 requests; 99 function_call + 3 custom_tool_call (apply_patch) + 3 web_search_call; outputs ending
    # "Process exited with code 2" (line 142) and "... code 1" (lines 164, 217, 272); SKILL.md read at
    # lines 9 (using-superpowers) and 27 (brainstorming, then test-driven-development in the same command)
    TUI: ("019e1625-789d-76c0-80ab-3724b5ddb799", 2, 105, 4, 2, "gpt-5.5"),
    # 3 requests (event_msg only); 38 function_call (exec_command 35, js 3); "code 1" once (line 47);
    # SKILL.md read at lines 4, 35, 36, 40; no turn_context line at all
    DESKTOP: ("019e1695-0522-7c83-8b39-0dd379793f80", 3, 38, 1, 4, None),
}


def _raw(name: str) -> bytes:
    path = REAL / name
    if not path.is_file():
        if os.environ.get("AKW_REQUIRE_REALDATA"):
            pytest.fail(f"real Codex rollouts missing at {REAL} (AKW_REQUIRE_REALDATA is set)")
        pytest.skip(f"real Codex rollouts absent at {REAL}")
    return path.read_bytes()


@cache
def _parsed(name: str) -> ParsedLog:
    return parse_file(EXPECTED[name][0], _raw(name))


def _line(kind: str, payload: dict[str, Any] | None = None, ts: str = "2025-09-01T10:00:00.000Z") -> str:
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload or {}})


def _rollout(*lines: str) -> bytes:
    return ("\n".join(lines) + "\n").encode()


META = _line("session_meta", {"id": "0199aaaa-0000-7000-8000-000000000001", "timestamp": "2025-09-01T09:59:59.000Z",
                              "cwd": "/work/proj", "originator": "codex_cli_rs", "cli_version": "0.40.0",
                              "git": {"branch": "main"}})


def _fn_call(call_id: str, name: str, args: dict[str, Any]) -> str:
    return _line("response_item", {"type": "function_call", "name": name, "arguments": json.dumps(args),
                                   "call_id": call_id})


def _fn_output(call_id: str, output: str) -> str:
    return _line("response_item", {"type": "function_call_output", "call_id": call_id, "output": output})


# -- the real files ---------------------------------------------------------------
@pytest.mark.parametrize("name", list(EXPECTED))
def test_real_rollout_counts(name: str) -> None:
    sid, humans, calls, errors, skills, model = EXPECTED[name]
    data = _raw(name)
    r = _parsed(name)
    st = r.stats
    assert (st["human_messages"], st["tool_calls"], st["tool_errors"], st["skill_uses"]) == (humans, calls, errors,
                                                                                            skills)
    assert st["turns"] == humans
    assert st["model"] == r.header["model"] == model
    assert session_id_of(name, data) == sid
    assert r.header["session_ids"] == [sid]
    assert st["lines_bad"] == 0 and st["truncated_tail"] is False
    assert st["events_unknown"] == 0 and st["unknown_types"] == []
    assert st["subagent_calls"] == 0 and st["events_replayed"] == 0
    # every non-blank line is an event, a known skipped line, a duplicate or an unknown one
    lines = [x for x in data.split(b"\n") if x.strip()]
    assert st["events"] + st["lines_skipped"] + st["events_duplicate"] + st["events_unknown"] == len(lines)
    assert [e["seq"] for e in r.events] == list(range(1, len(r.events) + 1))
    assert [e["line_no"] for e in r.events] == sorted(e["line_no"] for e in r.events)
    assert all(e["session_id"] == sid and e["time"] is not None for e in r.events)
    assert set().union(*(e.keys() for e in r.events)) <= set(EVENTS_SCHEMA)
    assert to_frame(r.events, EVENTS_SCHEMA).height == st["events"]
    assert to_frame(r.artifacts, ARTIFACTS_SCHEMA).height == len(r.artifacts)


def test_header_fields_from_session_meta() -> None:
    h = _parsed(TUI).header
    assert h["cwd"] == "/Users/Sample_User/repos/codemie-ai/codemie-code"
    assert h["git_branch"] == "feat/codex-agent-plugin"
    assert (h["tool_version"], h["originator"], h["title"]) == ("0.125.0", "codex-tui", None)
    assert h["created_at"] == 1778488015042  # session_meta.payload.timestamp 2026-05-11T08:26:55.042Z
    d = _parsed(DESKTOP).header
    assert (d["originator"], d["git_branch"], d["model"]) == ("Codex Desktop", None, None)


def test_harness_items_are_injected_not_human() -> None:
    for name in (EXEC, TUI):
        r = _parsed(name)
        injected = [e["text"] for e in r.events if e["role"] == "injected"]
        assert any(t.startswith("# AGENTS.md instructions for") for t in injected)
        humans = [e["text"] for e in r.events if e["role"] == "human"]
        assert not any("<environment_context>" in t or "AGENTS.md instructions" in t for t in humans)
    tui_injected = [e["text"] for e in _parsed(TUI).events if e["role"] == "injected"]
    assert tui_injected[0].startswith("<permissions instructions>")  # the developer-role item
    assert _parsed(TUI).stats["injected_messages"] == 2
    assert [e["text"] for e in _parsed(EXEC).events if e["role"] == "human"] == [
        "what is current repository about? summarize purpuse and explain goals"]


def test_duplicated_human_text_emitted_once() -> None:
    r = _parsed(TUI)  # "show tools" is both response_item (line 6) and event_msg user_message (line 7)
    shows = [e for e in r.events if e.get("text") == "show tools"]
    assert len(shows) == 1 and shows[0]["kind"] == "user/message" and shows[0]["line_no"] == 6
    assert r.stats["goal"] == "show tools"


def test_desktop_requests_come_from_event_msg_with_files_preamble() -> None:
    r = _parsed(DESKTOP)  # Codex Desktop writes no response_item user message
    humans = [e for e in r.events if e["role"] == "human"]
    assert [e["line_no"] for e in humans] == [2, 31, 33]
    assert humans[0]["text"].lstrip().startswith("# Files mentioned by the user:")
    assert "## My request for Codex:" in humans[0]["text"]  # the whole text is kept
    assert r.stats["goal"] == humans[0]["text"]


def test_assistant_text_emitted_once() -> None:
    r = _parsed(TUI)  # 13 agent_message events, each mirrored by a response_item assistant message
    texts = [e["text"] for e in r.events if e["kind"] == "assistant/message" and e.get("text")]
    assert len(texts) == 13 == len(set(texts))
    assert all(e.get("model") == "gpt-5.5" for e in r.events if e["kind"] == "assistant/message")
    # Desktop writes the assistant side only as response items: 3
    assert sum(1 for e in _parsed(DESKTOP).events if e["kind"] == "assistant/message") == 3


def test_reasoning_summary_kept_once_and_tokens_attached() -> None:
    r = _parsed(EXEC)  # agent_reasoning (line 21) duplicates the reasoning item's summary (line 22)
    reasoning = [e for e in r.events if e.get("reasoning")]
    assert len(reasoning) == 1 and reasoning[0]["line_no"] == 22
    assert reasoning[0]["reasoning"].startswith("**Clarifying documentation instructions**")
    assert reasoning[0]["kind"] == "assistant/message" and reasoning[0]["text"] is None
    assert (reasoning[0]["input_tokens"], reasoning[0]["output_tokens"]) == (7662, 125)  # line 24's last usage
    # the session total is the last total_token_usage; token_count lines yield no event
    assert (r.stats["input_tokens"], r.stats["output_tokens"]) == (22474, 300)
    assert (_parsed(TUI).stats["input_tokens"], _parsed(TUI).stats["output_tokens"]) == (6055836, 9118)
    assert not any("token" in (e.get("source_kind") or "") for e in r.events)


def test_shell_command_unwrapped() -> None:
    cmds = [e["command"] for e in _parsed(EXEC).events if e["kind"] == "tool/call"]
    assert cmds == ["ls", "rg --files -g 'AGENTS.md'", "sed -n '1,160p' README.md"]


def test_call_and_result_share_call_id_and_tool_name() -> None:
    r = _parsed(TUI)
    calls = {e["call_id"]: e for e in r.events if e["kind"] == "tool/call" and e["call_id"]}
    results = [e for e in r.events if e["kind"] == "tool/result"]
    assert len(results) == 102  # web_search_call has no output item
    for res in results:
        call = calls[res["call_id"]]
        assert res["tool_name"] == call["tool_name"] and call["seq"] < res["seq"]
    first = next(e for e in results if e["call_id"] == "call_Y2p6KmqwoTtpi6atpDPuxC5M")
    assert first["tool_name"] == "exec_command" and first["is_error"] is False
    failed = next(e for e in results if e["line_no"] == 142)
    assert failed["tool_name"] == "write_stdin" and failed["is_error"] is True
    assert "Process exited with code 2" in failed["text"]


def test_apply_patch_yields_artifacts() -> None:
    r = _parsed(TUI)
    assert [(a["path"], a["change"]) for a in r.artifacts] == [
        ("src/agents/plugins/__tests__/codemie-code-reasoning.test.ts", "modified"),
        ("src/agents/plugins/codemie-code.plugin.ts", "modified"),
        ("src/agents/plugins/opencode/opencode.plugin.ts", "modified"),
    ]
    by_seq = {e["seq"]: e for e in r.events}
    for a in r.artifacts:
        call = by_seq[a["seq"]]
        assert call["tool_name"] == "apply_patch" and call["call_id"] == a["call_id"]
        assert call["file_path"] == a["path"] and call["arguments"].startswith("*** Begin Patch")
        assert (a["line_no"], a["time"], a["description"]) == (call["line_no"], call["time"], None)
    outputs = [e for e in r.events if e["kind"] == "tool/result" and e["tool_name"] == "apply_patch"]
    assert len(outputs) == 3 and not any(e["is_error"] for e in outputs)


def test_skills_are_read_from_skill_md() -> None:
    used = [(e["line_no"], e["skill_name"], e["skill_via"]) for e in _parsed(TUI).events if e.get("skill_name")]
    assert used == [(9, "using-superpowers", "read"), (27, "brainstorming", "read")]
    desktop = [e["skill_name"] for e in _parsed(DESKTOP).events if e.get("skill_name")]
    assert desktop == ["using-superpowers", "browser", "brainstorming", "browser"]


def test_web_search_call_is_a_tool_call() -> None:
    searches = [e for e in _parsed(TUI).events if e.get("tool_name") == "web_search"]
    assert len(searches) == 3 and all(e["kind"] == "tool/call" for e in searches)
    assert searches[0]["text"] == ("OpenCode config compact context percentage compact threshold env var "
                                   "OPENCODE_CONFIG_CONTENT")


def test_excluded_patch_path_drops_arguments_and_artifact() -> None:
    r = parse_file("s", _raw(TUI), path_excluded=lambda p: p.endswith("/opencode/opencode.plugin.ts"))
    assert [a["path"] for a in r.artifacts] == ["src/agents/plugins/__tests__/codemie-code-reasoning.test.ts",
                                                "src/agents/plugins/codemie-code.plugin.ts"]
    call = next(e for e in r.events if e["call_id"] == "call_kOisxAYIbsLzuTGB7Zfirx89" and e["kind"] == "tool/call")
    assert (call["arguments"], call["file_path"]) == (None, None)
    result = next(e for e in r.events if e["call_id"] == "call_kOisxAYIbsLzuTGB7Zfirx89" and e["kind"] == "tool/result")
    assert result["text"] is None


def test_torn_last_line_is_truncated_tail() -> None:
    data = _raw(EXEC)
    torn = data[:-200]  # cut inside the last line (a live append)
    r = parse_file("s", torn)
    assert r.stats["truncated_tail"] is True and r.stats["lines_bad"] == 1
    assert r.stats["human_messages"] == 1 and r.stats["tool_calls"] == 3
    # a prefix of the file parses to a prefix of the rows (cut between the twin user lines 4 and 5)
    prefix = b"".join(data.split(b"\n")[i] + b"\n" for i in range(4))
    head = parse_file(EXPECTED[EXEC][0], prefix).events
    assert head == _parsed(EXEC).events[:len(head)] and head[-1]["role"] == "human"


# -- synthetic rollouts ---------------------------------------------------------------
def test_older_format_rollout_parses() -> None:
    older = "\n".join([
        json.dumps({"id": "5973b6c0-94b8-487b-a530-2aeb6098ae0e", "timestamp": "2025-05-07T17:24:21.123Z",
                    "instructions": None}),
        json.dumps({"record_type": "state"}),
        json.dumps({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<user_instructions>\nbe terse\n</user_instructions>"}]}),
        json.dumps({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list files"}]}),
        json.dumps({"type": "function_call", "name": "shell", "call_id": "call_1",
                    "arguments": json.dumps({"command": ["bash", "-lc", "ls missing"]})}),
        json.dumps({"record_type": "state", "previous_response_id": "resp_1"}),
        json.dumps({"type": "function_call_output", "call_id": "call_1",
                    "output": json.dumps({"output": "ls: missing: No such file", "metadata": {"exit_code": 1}})}),
        json.dumps({"type": "local_shell_call", "call_id": "call_2", "status": "completed",
                    "action": {"type": "exec", "command": ["cat", ".codex/skills/pdf/SKILL.md"]}}),
        json.dumps({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "none"}]}),
    ]).encode()
    r = parse_file("5973b6c0-94b8-487b-a530-2aeb6098ae0e", older)
    assert session_id_of("x.jsonl", older) == "5973b6c0-94b8-487b-a530-2aeb6098ae0e"
    assert r.header["session_ids"] == ["5973b6c0-94b8-487b-a530-2aeb6098ae0e"]
    assert r.header["created_at"] == 1746638661123
    assert r.header["model"] is None
    st = r.stats
    assert (st["human_messages"], st["injected_messages"], st["tool_calls"], st["tool_errors"]) == (1, 1, 2, 1)
    assert (st["lines_skipped"], st["events_unknown"], st["skill_uses"], st["goal"]) == (3, 0, 1, "list files")
    kinds = [(e["kind"], e["role"]) for e in r.events]
    assert kinds == [("user/message", "injected"), ("user/message", "human"), ("tool/call", "tool_call"),
                     ("tool/result", "tool_result"), ("tool/call", "tool_call"), ("assistant/message", "assistant")]
    assert r.events[2]["command"] == "ls missing" and r.events[3]["tool_name"] == "shell"
    assert r.events[4]["command"] == "cat .codex/skills/pdf/SKILL.md" and r.events[4]["skill_name"] == "pdf"


def test_unknown_types_are_counted_and_skipped() -> None:
    data = _rollout(META, _line("hologram", {"x": 1}),
                    _line("response_item", {"type": "telepathy_call", "call_id": "c"}),
                    _line("event_msg", {"type": "brand_new_event"}),
                    _line("event_msg", {"type": "user_message", "message": "hi"}))
    r = parse_file("s", data)
    assert r.stats["events_unknown"] == 3
    assert r.stats["unknown_types"] == ["event_msg:brand_new_event", "hologram", "response_item:telepathy_call"]
    assert [(e["kind"], e["text"]) for e in r.events] == [("user/message", "hi")]


def test_excluded_path_drops_arguments_and_result() -> None:
    data = _rollout(META, _fn_call("c1", "view_image", {"path": "secrets/key.env"}), _fn_output("c1", "KEY=1"),
                    _fn_call("c2", "view_image", {"path": "ok.png"}), _fn_output("c2", "fine"))
    r = parse_file("s", data, path_excluded=lambda p: p == "/work/proj/secrets/key.env")  # relative to cwd
    c1, o1, c2, o2 = r.events
    assert (c1["arguments"], c1["file_path"], o1["text"]) == (None, None, None)
    assert (c2["file_path"], o2["text"]) == ("ok.png", "fine")


def test_patches_compaction_subagents_and_errors() -> None:
    patch = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Delete File: b.txt\n*** Update File: c.py\n@@\n-1\n+2\n" \
            "*** End Patch"
    data = _rollout(
        META, _line("turn_context", {"model": "gpt-5-codex"}),
        _line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
        _line("response_item", {"type": "custom_tool_call", "name": "apply_patch", "call_id": "p1", "input": patch}),
        _line("response_item", {"type": "custom_tool_call_output", "call_id": "p1",
                                "output": "Exit code: 1\nWall time: 0.1 seconds\nOutput:\nverification failed"}),
        _fn_call("s1", "spawn_agent", {"message": "review c.py", "agent_type": "reviewer"}),
        _line("response_item", {"type": "function_call_output", "call_id": "s1",
                                "output": {"content": "spawned", "success": False}}),  # the object form
        _line("compacted", {"message": "summary of the work so far"}),
        _line("event_msg", {"type": "context_compacted"}),
    )
    r = parse_file("s", data)
    assert [(a["path"], a["change"]) for a in r.artifacts] == [("a.txt", "created"), ("b.txt", "deleted"),
                                                               ("c.py", "modified")]
    call = r.events[1]
    assert (call["file_path"], call["arguments"]) == ("a.txt", patch)
    assert r.events[2]["is_error"] is True and r.events[2]["tool_name"] == "apply_patch"
    spawn = r.events[3]
    assert (spawn["target_name"], spawn["text"]) == ("reviewer", "review c.py")
    assert (r.events[4]["text"], r.events[4]["is_error"]) == ("spawned", True)  # success: false
    assert (r.events[5]["kind"], r.events[5]["role"], r.events[5]["text"]) == ("compaction/completed", "system",
                                                                               "summary of the work so far")
    st = r.stats
    assert (st["subagent_calls"], st["compactions"], st["tool_errors"], st["model"]) == (1, 1, 2, "gpt-5-codex")
    assert r.header["git_branch"] == "main" and r.header["session_ids"] == ["0199aaaa-0000-7000-8000-000000000001"]


def test_duplicate_token_counts_and_null_info() -> None:
    usage = {"input_tokens": 10, "output_tokens": 2}
    tc = _line("event_msg", {"type": "token_count", "info": {"total_token_usage": usage, "last_token_usage": usage}})
    data = _rollout(META, _line("event_msg", {"type": "token_count", "info": None}), tc,
                    _line("event_msg", {"type": "user_message", "message": "q"}),
                    _line("event_msg", {"type": "agent_message", "message": "a"}), tc)
    r = parse_file("s", data)
    assert (r.stats["input_tokens"], r.stats["output_tokens"]) == (10, 2)
    assert r.events[-1].get("input_tokens") is None  # the repeated count after the answer is not added
    assert r.stats["lines_skipped"] == 4


def test_large_output_is_capped_only_when_asked() -> None:
    big = "x" * 100_000
    data = _rollout(META, _fn_call("c1", "exec_command", {"cmd": "cat big"}), _fn_output("c1", big))
    assert "[TRUNCATED" in parse_file("s", data).events[1]["text"]
    assert parse_file("s", data, capped=False).events[1]["text"] == big


def test_session_id_of_head_and_file_name() -> None:
    head = _raw(TUI)[:4096]  # the first line (session_meta + base instructions) is ~22 KB: cut mid-line
    assert session_id_of(TUI, head) == EXPECTED[TUI][0]
    assert session_id_of("sessions/2026/05/11/" + DESKTOP, b"") == EXPECTED[DESKTOP][0]
    assert session_id_of("rollout-2025-05-07T17-24-21-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl",
                         b"not json") == "5973b6c0-94b8-487b-a530-2aeb6098ae0e"
    assert session_id_of("notes.jsonl", b"") is None


def test_malformed_values_never_fail() -> None:
    data = _rollout(
        META, json.dumps({"type": {"nested": 1}, "payload": []}),
        _line("response_item", {"type": "message", "role": ["user"], "content": 5}),
        _line("response_item", {"type": "function_call", "name": None, "arguments": "{not json", "call_id": 7}),
        _line("response_item", {"type": "function_call_output", "call_id": None, "output": 12}),
        _line("event_msg", {"type": "token_count", "info": {"total_token_usage": "x", "last_token_usage": [1]}}),
        "[1, 2]", _line("turn_context", []))
    r = parse_file("s", data)
    assert (r.stats["events_unknown"], r.stats["lines_bad"], r.stats["truncated_tail"]) == (1, 1, False)
    call, result = r.events
    assert (call["kind"], call["arguments_bad"], call["call_id"]) == ("tool/call", True, "7")
    assert (result["text"], result["is_error"]) == ("12", False)
