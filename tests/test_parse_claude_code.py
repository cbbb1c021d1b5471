"""Claude Code transcript parser: the 8 real sample files (counts read off each file by hand) and the
format's pitfalls (foreign summaries, harness text, sidechains, streamed usage, resumes, torn tails)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from warehouse.extract.claude_code.parse import parse_file
from warehouse.extract.eventlog import EVENTS_SCHEMA, to_frame

REALDATA = Path(__file__).resolve().parents[2] / "shared" / "realdata" / "agents" / "claude-code" / "codemie-code"
MAIN_4C = "-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
TURN_1 = "incremental-subagents/turn-1.jsonl"
TURN_2 = "incremental-subagents/turn-2.jsonl"
SUBAGENT = "incremental-subagents/turn-2/subagents/agent-a485154.jsonl"

# file -> (human requests, tool calls, tool errors, Task launches, skill uses, compactions), counted by reading
# each file: user lines typed by the person, tool_use blocks, tool_result blocks with is_error, ...
EXPECTED = {
    MAIN_4C: (3, 6, 0, 0, 0, 0),  # 3 prompts; Write x3, Read, Edit, Bash
    "-tmp-private/agent-36541525.jsonl": (0, 0, 0, 0, 0, 0),  # Warmup sidechain; <function_calls> is only text
    "-tmp-private/agent-50243ee8.jsonl": (0, 0, 0, 0, 0, 0),  # Warmup sidechain (Bedrock model name)
    TURN_1: (1, 7, 0, 1, 0, 0),  # the @agent prompt; Task + Bash x6
    TURN_2: (1, 14, 0, 1, 0, 0),  # + Read x4, Glob x2, Write
    SUBAGENT: (0, 20, 1, 0, 0, 0),  # the Task prompt is not human; Read of a missing registry.ts fails
    "session-9eda1058.jsonl": (3, 3, 1, 2, 0, 0),  # Write rejected by the user; 2 Explore Tasks
    "session-624a4a58.jsonl": (14, 48, 0, 0, 0, 1),  # /clear echo, 3 interrupts, 1 auto compaction
}


@pytest.fixture(scope="module")
def realdata() -> Path:
    if not REALDATA.is_dir():
        reason = f"real Claude Code samples not found at {REALDATA}"
        if os.environ.get("AKW_REQUIRE_REALDATA"):
            pytest.fail(reason)
        pytest.skip(reason)
    return REALDATA


def _parse(root: Path, name: str, **kw: Any):
    return parse_file("s-test", (root / name).read_bytes(), **kw)


def _line(**obj: Any) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def _user(uuid: str, content: Any, **kw: Any) -> bytes:
    return _line(type="user", uuid=uuid, sessionId="sess-1", cwd="/w", timestamp="2026-01-01T00:00:00.000Z",
                 message={"role": "user", "content": content}, **kw)


def _assistant(uuid: str, blocks: list[dict[str, Any]], mid: str = "msg-1", out: int = 5) -> bytes:
    return _line(type="assistant", uuid=uuid, sessionId="sess-1", cwd="/w", timestamp="2026-01-01T00:00:01.000Z",
                 message={"id": mid, "model": "claude-x", "role": "assistant", "content": blocks,
                          "usage": {"input_tokens": 10, "cache_read_input_tokens": 90, "output_tokens": out}})


# -- the real samples -------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_counts(realdata: Path, name: str) -> None:
    st = _parse(realdata, name).stats
    got = (st["human_messages"], st["tool_calls"], st["tool_errors"], st["subagent_calls"], st["skill_uses"],
           st["compactions"])
    assert got == EXPECTED[name]
    assert st["turns"] == st["human_messages"]
    assert (st["lines_bad"], st["truncated_tail"], st["events_unknown"], st["events_duplicate"]) == (0, False, 0, 0)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_rows_fit_the_event_schema(realdata: Path, name: str) -> None:
    parsed = _parse(realdata, name)
    assert all(set(ev) <= set(EVENTS_SCHEMA) for ev in parsed.events)
    assert [ev["seq"] for ev in parsed.events] == list(range(1, len(parsed.events) + 1))
    assert to_frame(parsed.events, EVENTS_SCHEMA).height == parsed.stats["events"]


def test_foreign_summaries_are_not_the_title(realdata: Path) -> None:
    parsed = _parse(realdata, "session-9eda1058.jsonl")
    summary_lines = set(range(3, 7)) | set(range(8, 20))  # the 16 summary lines name other sessions' leaves
    assert len(summary_lines) == 16
    assert parsed.header["title"] is None and parsed.stats["title"] is None
    assert not [ev for ev in parsed.events if ev["line_no"] in summary_lines or ev["kind"] == "session/title"]
    assert parsed.stats["lines_skipped"] == 16 + 3 + 2  # + file-history-snapshot x3, system turn_duration x2
    assert parsed.stats["goal"] == "show tools and store response in file"


def test_interrupt_and_rejected_write_are_not_requests_nor_artifacts(realdata: Path) -> None:
    parsed = _parse(realdata, "session-9eda1058.jsonl")
    by_line = {ev["line_no"]: ev for ev in parsed.events}
    assert by_line[22]["role"] == "injected" and by_line[22]["text"].startswith("[Request interrupted by user")
    assert by_line[21]["is_error"] is True and by_line[21]["tool_name"] == "Write"
    assert parsed.artifacts == []  # the only Write was rejected


def test_clear_echo_and_compact_summary_are_not_human(realdata: Path) -> None:
    parsed = _parse(realdata, "session-624a4a58.jsonl")
    by_line: dict[int, list[dict[str, Any]]] = {}
    for ev in parsed.events:
        by_line.setdefault(ev["line_no"], []).append(ev)
    for no in (2, 3, 4):  # caveat (isMeta), the /clear echo, its empty <local-command-stdout>
        (ev,) = by_line[no]
        assert (ev["kind"], ev["role"], ev.get("skill_name")) == ("user/message", "injected", None)
    assert "<command-name>/clear</command-name>" in by_line[3][0]["text"]
    assert 158 not in by_line  # the compact_boundary folds into the summary line's event
    (comp,) = by_line[159]
    assert (comp["kind"], comp["role"]) == ("compaction/completed", "system")
    assert comp["text"].startswith("This session is being continued from a previous conversation")
    assert json.loads(comp["data_json"])["trigger"] == "auto"
    assert parsed.stats["goal"].startswith("@src/providers/plugins/sso/ARCHITECTURE-REFACTORING.md review")
    assert parsed.stats["injected_messages"] == 6  # caveat, /clear, stdout, 3 interrupts


@pytest.mark.parametrize(("name", "agent"), [("-tmp-private/agent-36541525.jsonl", "36541525"),
                                             ("-tmp-private/agent-50243ee8.jsonl", "50243ee8")])
def test_legacy_warmup_sidechain(realdata: Path, name: str, agent: str) -> None:
    parsed = _parse(realdata, name)
    h = parsed.header
    parent = "4c2ddfdc-b619-4525-8d03-1950fb1b0257"  # the main session's id, not a session of its own
    assert (h["agent_id"], h["is_sidechain"], h["session_ids"]) == (agent, True, [parent])
    first = parsed.events[0]
    assert (first["kind"], first["role"], first["text"]) == ("user/message", "injected", "Warmup")
    assert parsed.stats["human_messages"] == 0 and parsed.stats["goal"] is None


def test_new_layout_subagent_prompt_is_not_human(realdata: Path) -> None:
    parsed = _parse(realdata, SUBAGENT)
    assert (parsed.header["agent_id"], parsed.header["is_sidechain"]) == ("a485154", True)
    first = parsed.events[0]
    assert (first["kind"], first["role"]) == ("user/message", "injected")
    assert first["text"].startswith("Analyze the existing CLI command structure")
    (err,) = [ev for ev in parsed.events if ev.get("is_error")]
    assert (err["tool_name"], err["text"]) == ("Read", "<tool_use_error>File does not exist.</tool_use_error>")
    assert parsed.stats["lines_skipped"] == 1  # the hook `progress` line


def test_turn_1_is_a_prefix_of_turn_2(realdata: Path) -> None:
    one, two = (realdata / TURN_1).read_bytes(), (realdata / TURN_2).read_bytes()
    assert two.startswith(one)
    p1, p2 = parse_file("s", one), parse_file("s", two)
    assert p1.events == p2.events[:len(p1.events)]
    assert p1.artifacts == p2.artifacts[:len(p1.artifacts)]
    assert len(p1.events) < len(p2.events)
    assert p1.header == p2.header


def test_task_launch_names_its_subagent(realdata: Path) -> None:
    parsed = _parse(realdata, TURN_2)
    (task,) = [ev for ev in parsed.events if ev.get("tool_name") == "Task" and ev["role"] == "tool_call"]
    assert task["target_name"] == "solution-architect"
    assert task["text"].startswith("Analyze CLI and spec new commands\n\nAnalyze the existing CLI command structure")
    (res,) = [ev for ev in parsed.events if ev["role"] == "tool_result" and ev["call_id"] == task["call_id"]]
    assert res["tool_name"] == "Task" and json.loads(res["data_json"])["agent_id"] == "a485154"
    (art,) = parsed.artifacts
    assert (art["path"].rsplit("/", 1)[1], art["change"]) == ("SPEC-NEW-CLI-COMMANDS.md", "created")


def test_tokens_counted_once_per_message_id(realdata: Path) -> None:
    parsed = _parse(realdata, MAIN_4C)
    # 7 API messages; input = input + cache creation + cache read of each, summed by hand from the file
    assert parsed.stats["input_tokens"] == 251_832
    assert parsed.stats["output_tokens"] == 806  # each message's final output_tokens (395 + 82 + 87 + ...)
    first = [ev for ev in parsed.events if ev["message_id"] == "msg_bdrk_013SYvCzWGkVVXBeihWmL3gF"]
    assert [ev["line_no"] for ev in first] == [3, 4, 5, 6]  # one line per content block
    assert (first[0]["input_tokens"], first[0]["output_tokens"]) == (35_069, 395)  # not the streamed 4
    assert all(ev.get("input_tokens") is None and ev.get("output_tokens") is None for ev in first[1:])
    assert [a["change"] for a in parsed.artifacts] == ["created"] * 3 + ["modified"]


def test_excluded_path_drops_arguments_and_result(realdata: Path) -> None:
    parsed = _parse(realdata, MAIN_4C, path_excluded=lambda p: p == "/tmp/private/hello.py")
    calls = {ev["call_id"]: ev for ev in parsed.events if ev["role"] == "tool_call"}
    hidden = calls["toolu_bdrk_01QRsKSkDDpcbN5DcZGF6N69"]  # Write hello.py
    assert (hidden["file_path"], hidden["arguments"]) == (None, None)
    assert "hello.md" in calls["toolu_bdrk_016tbodT5CtBRJqqi7vKsFvG"]["arguments"]
    results = {ev["call_id"]: ev for ev in parsed.events if ev["role"] == "tool_result"}
    assert results["toolu_bdrk_019rEFxU8hyZyoD9foULmY5m"]["text"] is None  # Read hello.py
    assert results["toolu_bdrk_016tbodT5CtBRJqqi7vKsFvG"]["text"].startswith("File created successfully")
    assert [a["path"] for a in parsed.artifacts] == ["/tmp/private/hello.md", "/tmp/private/hello.js"]
    assert not any("#!/usr/bin/env python3" in (ev.get("arguments") or "") for ev in parsed.events)


def test_torn_last_line_is_a_truncated_tail(realdata: Path) -> None:
    data = (realdata / MAIN_4C).read_bytes()
    whole = parse_file("s", data)
    torn = parse_file("s", data[:-40])  # the last line (an assistant reply) cut mid-write
    assert (torn.stats["truncated_tail"], torn.stats["lines_bad"]) == (True, 1)
    assert torn.events == whole.events[:-1]


def test_torn_compaction_pair_still_counts() -> None:
    data = (_user("u1", "go") + _line(type="system", subtype="compact_boundary", uuid="b1", content="Compacted",
                                     compactMetadata={"trigger": "manual"}) + _user("u2", "next"))
    parsed = parse_file("s", data)
    assert parsed.stats["compactions"] == 1 and parsed.stats["human_messages"] == 2
    comp = next(ev for ev in parsed.events if ev["kind"] == "compaction/completed")
    assert (comp["line_no"], comp["text"], json.loads(comp["data_json"])["trigger"]) == (2, "Compacted", "manual")


# -- synthetic lines -------------------------------------------------------------------
def test_unknown_line_type_is_counted_and_skipped() -> None:
    data = _user("u1", "hello") + _line(type="brand-new-thing", uuid="x1", payload=1) + _line(type="mode", mode="x")
    parsed = parse_file("s", data)
    st = parsed.stats
    assert (st["events_unknown"], st["unknown_types"], st["lines_skipped"], st["events"]) == (
        1, ["brand-new-thing"], 1, 1)


def test_slash_commands_and_skill_tool() -> None:
    data = (_user("u1", "<command-message>review-pr</command-message>\n<command-name>/review-pr</command-name>\n"
                        "<command-args>check PR 12</command-args>")
            + _user("u2", "<command-name>/frontend:lint</command-name>\n<command-args></command-args>")
            + _user("u3", "<command-name>/model</command-name>\n<command-args>opus</command-args>")
            + _assistant("a1", [{"type": "tool_use", "id": "t1", "name": "Skill", "input": {"skill": "pdf"}}]))
    evs = parse_file("s", data).events
    got = [(ev["role"], ev.get("skill_name"), ev.get("skill_via"), ev.get("text")) for ev in evs]
    assert got[0] == ("human", "review-pr", "slash", "check PR 12")
    assert got[1][:3] == ("injected", "frontend:lint", "slash")
    assert got[2][:3] == ("injected", None, None)
    assert got[3] == ("tool_call", "pdf", "tool", None)
    st = parse_file("s", data).stats
    assert (st["skill_uses"], st["human_messages"], st["goal"]) == (3, 1, "check PR 12")


def test_harness_user_text_is_injected() -> None:
    data = (_user("u1", "<system-reminder>be careful</system-reminder>")
            + _user("u2", [{"type": "text", "text": "[Request interrupted by user]"}])
            + _user("u3", "expanded skill body", isMeta=True)
            + _user("u4", [{"type": "text", "text": "<ide_selection>x</ide_selection>"},
                           {"type": "text", "text": "fix this"}]))
    evs = parse_file("s", data).events
    assert [ev["role"] for ev in evs] == ["injected", "injected", "injected", "human"]
    assert evs[3]["text"] == "fix this"


def test_own_title_duplicates_and_subagent_defaults() -> None:
    data = (_line(type="summary", summary="Someone else's", leafUuid="not-here")
            + _user("u1", "build it")
            + _assistant("a1", [{"type": "text", "text": "ok"}], mid="m1", out=3)
            + _assistant("a2", [{"type": "tool_use", "id": "t1", "name": "Agent",
                                 "input": {"description": "look", "prompt": "find x"}}], mid="m1", out=40)
            + _user("u1", "build it")  # a resumed session repeats the line
            + _line(type="summary", summary="Build it", leafUuid="a2")
            + _line(type="ai-title", aiTitle="Other session", sessionId="sess-2"))
    parsed = parse_file("s", data)
    st = parsed.stats
    assert (st["events_duplicate"], st["title"], parsed.header["title"]) == (1, "Build it", "Build it")
    assert [ev["kind"] for ev in parsed.events] == ["user/message", "assistant/message", "tool/call", "session/title"]
    call = parsed.events[2]
    assert (call["target_name"], call["text"], st["subagent_calls"]) == ("general-purpose", "look\n\nfind x", 1)
    assert (st["input_tokens"], st["output_tokens"]) == (100, 40)  # one message: its final output count
    assert st["lines_skipped"] == 2  # the foreign summary and the foreign ai-title
    assert parsed.header["session_ids"] == ["sess-1"]
