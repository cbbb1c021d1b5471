"""DSH extractor: every pitfall of SOURCES.md §1.1-1.3 on small hand-written homes, plus incrementality."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import zstandard

from warehouse.core.paths import Paths
from warehouse.core.settings import Settings
from warehouse.extract.base import ExtractContext, SourceReport
from warehouse.extract.dsh import job as dsh
from warehouse.extract.dsh.parse import frame_info
from warehouse.home.lake import Lake
from warehouse.home.state import SourceStore

T0 = 1_761_200_000_000  # header createdAt of every test session


# -- building a DSH home -------------------------------------------------------------
def _line(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def header(sid: str, created: int = T0, parent: str | None = None) -> dict[str, Any]:
    return {"type": "session", "version": 4, "id": sid, "cwd": "/home/u/proj", "createdAt": created,
            "parentSession": parent, "agentPreset": "standard"}


def ev(kind: str, seq: int, data: dict[str, Any], time_ms: int | None = None) -> dict[str, Any]:
    return {"type": kind, "seq": seq, "time": T0 + seq * 1000 if time_ms is None else time_ms, "data": data}


def user(seq: int, text: str, kind: str = "user", mid: str | None = None, **kw: Any) -> dict[str, Any]:
    return ev("user/message", seq, {"id": mid or f"m-{seq}", "content": [{"type": "text", "text": text}],
                                    "source": {"kind": kind}}, **kw)


def assistant(seq: int, turn: int, step: int, text: str = "ok", reasoning: str | None = None,
              **kw: Any) -> dict[str, Any]:
    content = [{"type": "text", "text": text}] + ([{"type": "reasoning", "text": reasoning}] if reasoning else [])
    return ev("assistant/message", seq, {"turn": turn, "step": step, "message": {"content": content},
                                         "model": "deepseek-v4", "usage": {"input_tokens": 100, "output_tokens": 10},
                                         "finishReason": "stop"}, **kw)


def call(seq: int, name: str, args: Any, cid: str | None = None) -> dict[str, Any]:
    raw = args if isinstance(args, str) else json.dumps(args)
    return ev("tool/call", seq, {"callId": cid or f"c-{seq}", "name": name, "arguments": raw})


def result(seq: int, cid: str, text: str, is_error: bool = False, name: str = "bash") -> dict[str, Any]:
    return ev("tool/result", seq, {"callId": cid, "name": name, "isError": is_error,
                                   "content": [{"type": "text", "text": text}]})


def compress(lines: list[bytes], frames: int = 1) -> bytes:
    """Split the lines over `frames` independent zstd frames, as appends would."""
    c = zstandard.ZstdCompressor()
    per = max(1, -(-len(lines) // frames))
    return b"".join(c.compress(b"".join(lines[i:i + per])) for i in range(0, len(lines), per))


def write_session(home: Path, ws: str, sid: str, events: list[dict[str, Any]], frames: int = 1,
                  head: dict[str, Any] | None = None, tail: bytes = b"") -> Path:
    p = home / "sessions" / ws / sid / "session.v4.jsonl.zstd"
    p.parent.mkdir(parents=True, exist_ok=True)
    lines = [_line(head or header(sid))] + [_line(e) for e in events] + ([tail] if tail else [])
    p.write_bytes(compress(lines, frames))
    return p


def write_json(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj), encoding="utf-8")


def write_proj(home: Path, sid: str, **fields: Any) -> None:
    write_json(home / "storages" / "session_projcache" / "sessions" / f"{sid}.json", {"id": sid, **fields})


def write_registry(home: Path, workspaces: list[dict[str, Any]]) -> None:
    write_json(home / "storages" / "workspace.json", {"workspaces": workspaces})


# -- running the extractor ------------------------------------------------------------
class Run:
    def __init__(self, tmp: Path, settings: Settings | None = None) -> None:
        self.home = tmp / "dsh"
        self.home.mkdir(exist_ok=True)
        self.paths = Paths(dsh_home=self.home, autoclaw_root=tmp / "ac", home=tmp / "akw")
        self.settings = settings or Settings()

    def __call__(self) -> tuple[SourceReport, ExtractContext]:
        self.paths.ensure()
        ctx = ExtractContext(paths=self.paths, settings=self.settings, lake=Lake(self.paths.lake),
                             store=SourceStore(self.paths.state_dir, "dsh"))
        rep = dsh.extract(ctx)
        ctx.store.save()
        return rep, ctx

    def table(self, name: str) -> pl.DataFrame:
        return pl.read_parquet(self.paths.lake / "bronze" / "dsh" / name / "*.parquet")

    def events(self, sid: str) -> pl.DataFrame:
        return self.table("events").filter(pl.col("session_id") == sid).sort("line_no")

    def session(self, sid: str) -> dict[str, Any]:
        rows = self.table("sessions").filter(pl.col("session_id") == sid).to_dicts()
        assert len(rows) == 1
        return rows[0]

    def state(self) -> dict[str, Any]:
        return json.loads((self.paths.state_dir / "dsh.json").read_text())


@pytest.fixture
def run(tmp_path: Path) -> Run:
    return Run(tmp_path)


# -- zstd and line damage ---------------------------------------------------------------
def test_multi_frame_file_reads_every_frame(run: Run) -> None:
    p = write_session(run.home, "ws1", "s-multi", [user(i, f"hello {i}") for i in range(1, 10)], frames=4)
    assert frame_info(p.read_bytes()) == (4, False)
    rep, _ = run()
    assert rep.units_changed == 1 and not rep.errors
    s = run.session("s-multi")
    assert s["events"] == 9 and s["frames"] == 4 and s["lines_bad"] == 0 and s["truncated_tail"] is False
    assert run.events("s-multi")["text"].to_list() == [f"hello {i}" for i in range(1, 10)]


def test_truncated_last_line_and_torn_frame_are_skipped_not_fatal(run: Run) -> None:
    write_session(run.home, "ws1", "s-trunc", [user(1, "a"), user(2, "b")], tail=b'{"type":"user/mess')
    # a live append torn inside its zstd frame: the first frame is whole, the second is cut
    p = write_session(run.home, "ws1", "s-torn", [user(i, "x" * 50) for i in range(1, 7)], frames=2)
    p.write_bytes(p.read_bytes()[:-20])
    assert frame_info(p.read_bytes()) == (2, True)
    rep, _ = run()
    assert rep.units_failed == 0
    s = run.session("s-trunc")
    assert s["events"] == 2 and s["lines_bad"] == 1 and s["truncated_tail"] is True
    torn = run.session("s-torn")
    assert 3 <= torn["events"] < 6 and torn["truncated_tail"] is True


def test_bad_json_line_in_the_middle_is_counted(run: Run) -> None:
    p = run.home / "sessions" / "ws1" / "s-bad" / "session.v4.jsonl.zstd"
    p.parent.mkdir(parents=True)
    lines = [_line(header("s-bad")), _line(user(1, "one")), b"{not json}\n", b"[1,2]\n", _line(user(4, "four"))]
    p.write_bytes(compress(lines))
    run()
    s = run.session("s-bad")
    assert s["events"] == 2 and s["lines_bad"] == 2 and s["truncated_tail"] is False
    assert run.events("s-bad")["line_no"].to_list() == [2, 5]


def test_corrupt_and_unreadable_files_fail_alone(run: Run) -> None:
    write_session(run.home, "ws1", "s-good", [user(1, "fine")])
    bad = run.home / "sessions" / "ws1" / "s-corrupt" / "session.v4.jsonl.zstd"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"this is not zstd at all" * 10)
    (run.home / "sessions" / "ws1" / "s-dir" / "session.v4.jsonl.zstd").mkdir(parents=True)  # open() fails
    junk = run.home / "sessions" / "ws1" / "s-junk" / "session.v4.jsonl.zstd"  # valid frames, no JSON inside
    junk.parent.mkdir(parents=True)
    junk.write_bytes(compress([b"\x00\x01 binary junk\n", b"more junk"]))
    rep, _ = run()
    assert rep.units_failed == 3 and rep.degraded
    assert sorted(e["unit"] for e in rep.errors) == ["session:s-corrupt", "session:s-dir", "session:s-junk"]
    assert {e["unit"]: e["code"] for e in rep.errors} == {  # unreadable is not corrupt (issue 13)
        "session:s-corrupt": "KNOWLEDGE_SOURCE_CORRUPT", "session:s-dir": "KNOWLEDGE_SOURCE_UNAVAILABLE",
        "session:s-junk": "KNOWLEDGE_SOURCE_CORRUPT"}
    assert run.table("sessions")["session_id"].to_list() == ["s-good"]
    units = run.state()["units"]
    assert units["session:s-corrupt"]["status"] == "error"
    assert units["session:s-corrupt"]["error_code"] == "KNOWLEDGE_SOURCE_CORRUPT"
    assert units["session:s-good"]["status"] == "ok"
    rep2, _ = run()  # a failed unit is retried, the good one is skipped
    assert rep2.units_failed == 3 and rep2.units_unchanged == 1


# -- replayed parent history --------------------------------------------------------------
def test_forked_session_skips_replayed_parent_events(run: Run) -> None:
    parent = [user(1, "parent ask", mid="u-p1"), assistant(2, 0, 0, "parent answer"), call(3, "bash",
              {"command": "ls"}, cid="c-p")]
    write_session(run.home, "ws1", "s-parent", parent)
    child_created = T0 + 10_000
    replay = [dict(e) for e in parent]  # same times as the parent: all < child's createdAt
    own = [user(11, "child ask", mid="u-c1"), assistant(12, 0, 0, "child answer"),
           user(13, "parent ask", mid="u-p1"),  # same identity replayed late: deduped
           call(14, "bash", {"command": "pwd"}, cid="c-p")]  # same callId: deduped
    write_session(run.home, "ws1", "s-child", replay + own, head=header("s-child", child_created, "s-parent"))
    run()
    child = run.session("s-child")
    assert child["events_replayed"] == 3 and child["events_duplicate"] == 2 and child["events"] == 2
    assert child["parent_session"] == "s-parent"
    evs = run.events("s-child")
    assert evs["text"].to_list() == ["child ask", "child answer"]  # turn 0/step 0 of the child is kept
    assert run.events("s-parent").height == 3
    assert child["first_time"].timestamp() * 1000 == T0 + 11_000


# -- message roles and skills -----------------------------------------------------------
def test_user_messages_human_vs_injected_and_slash_skills(run: Run) -> None:
    write_session(run.home, "ws1", "s-roles", [
        user(1, "/pdf-report make the Q3 report"),
        user(2, "time is 10:00", kind="time-context"),
        user(3, "skills: a, b", kind="skill-catalog"),
        user(4, "/home/u/file.py fix it"),
        user(5, "/deploy"),
        ev("user/message", 6, {"id": "m-6", "content": [{"type": "text", "text": "no source"}]}),
    ])
    run()
    evs = run.events("s-roles")
    assert evs["role"].to_list() == ["human", "injected", "injected", "human", "human", "injected"]
    assert evs["source_kind"].to_list() == ["user", "time-context", "skill-catalog", "user", "user", None]
    assert evs["skill_name"].to_list() == ["pdf-report", None, None, None, "deploy", None]
    assert evs["skill_via"].to_list() == ["slash", None, None, None, "slash", None]
    s = run.session("s-roles")
    assert s["human_messages"] == 3 and s["injected_messages"] == 3 and s["skill_uses"] == 2


def test_tool_call_arguments_are_decoded(run: Run) -> None:
    write_session(run.home, "ws1", "s-tools", [
        call(1, "skill", {"name": "xlsx"}),
        call(2, "bash", {"command": "pytest -q"}),
        call(3, "write", {"file_path": "/home/u/proj/a.py", "content": "print(1)"}),
        call(4, "multi_edit", {"file_path": "/home/u/proj/b.py", "edits": []}),
        call(5, "spawn_teammate", {"name": "reviewer", "description": "reviews", "prompt": "review a.py"}),
        call(6, "send_message", {"target": "reviewer", "message": "done?"}),
        call(7, "team_task_create", {"title": "Fix CI", "details": "flaky test", "owner": "tester"}),
        call(8, "bash", '{"command": "ls", '),  # broken JSON string
        call(9, "subagent", {"name": "scout", "prompt": "find the bug"}),
    ])
    run()
    e = run.events("s-tools")
    assert e["role"].unique().to_list() == ["tool_call"]
    assert e["tool_name"].to_list()[:3] == ["skill", "bash", "write"]
    assert e["skill_name"].to_list()[0] == "xlsx" and e["skill_via"].to_list()[0] == "tool"
    assert e["command"].to_list()[1] == "pytest -q"
    assert e["file_path"].to_list()[2:4] == ["/home/u/proj/a.py", "/home/u/proj/b.py"]
    assert e["target_name"].to_list()[4:7] == ["reviewer", "reviewer", "tester"]
    assert e["text"].to_list()[4:7] == ["reviews\n\nreview a.py", "done?", "Fix CI\n\nflaky test"]
    assert e["arguments_bad"].to_list() == [False] * 7 + [True, False]
    assert e["arguments"].to_list()[7] == '{"command": "ls", ' and e["command"].to_list()[7] is None
    assert e["target_name"].to_list()[8] == "scout" and e["text"].to_list()[8] == "find the bug"
    s = run.session("s-tools")
    assert s["tool_calls"] == 9 and s["skill_uses"] == 1


def test_assistant_text_and_reasoning_stay_apart(run: Run) -> None:
    write_session(run.home, "ws1", "s-asst", [
        assistant(1, 0, 0, "visible answer", reasoning="hidden chain"),
        assistant(2, 0, 1, "second"),
        assistant(3, 1, 0, "third"),
        assistant(4, 1, 0, "dup of turn 1 step 0"),
    ])
    run()
    e = run.events("s-asst")
    assert e["text"].to_list() == ["visible answer", "second", "third"]
    assert e["reasoning"].to_list() == ["hidden chain", None, None]
    assert e["turn"].to_list() == [0, 0, 1] and e["step"].to_list() == [0, 1, 0]
    assert set(e["model"].to_list()) == {"deepseek-v4"} and set(e["finish_reason"].to_list()) == {"stop"}
    s = run.session("s-asst")
    assert s["input_tokens"] == 300 and s["output_tokens"] == 30 and s["turns"] == 2
    assert s["model"] == "deepseek-v4" and s["events_duplicate"] == 1


def test_results_artifacts_system_and_unknown_kinds(run: Run) -> None:
    write_session(run.home, "ws1", "s-misc", [
        call(1, "bash", {"command": "false"}, cid="c1"),
        result(2, "c1", "exit 1", is_error=True),
        result(3, "c9", "fine"),
        ev("deliverables/presented", 4, {"callId": "c4", "files": [{"path": "out/report.pdf",
                                                                    "description": "Q3 report"}]}),
        ev("workspace/changes", 5, {"files": [{"path": "src/a.py", "change": "modified"},
                                              {"path": "src/old.py", "change": "deleted"}]}),
        ev("compaction/completed", 6, {"summary": "we fixed the build"}),
        ev("goal/change", 7, {"goal": "ship v2"}),
        ev("session/title", 8, {"title": "Build fixes"}),
        ev("subagent/catalog", 9, {"agents": [{"name": "scout", "description": "finds things"}]}),
        ev("brand/new-kind", 10, {"x": 1}),
        {"type": "no-data", "seq": 11, "time": T0 + 11_000},
    ])
    rep, _ = run()
    e = run.events("s-misc")
    assert e["is_error"].to_list()[1:3] == [True, False] and e["text"].to_list()[1] == "exit 1"
    assert e["role"].to_list()[3:] == ["artifact", "artifact", "system", "system", "system", "system", "other",
                                       "other"]
    assert json.loads(e["files_json"][3]) == [{"path": "out/report.pdf", "description": "Q3 report"}]
    assert json.loads(e["files_json"][4])[1] == {"path": "src/old.py", "change": "deleted"}
    assert e["text"].to_list()[5:8] == ["we fixed the build", "ship v2", "Build fixes"]
    assert json.loads(e["files_json"][8]) == [{"name": "scout", "description": "finds things"}]
    assert json.loads(e["data_json"][9]) == {"x": 1}
    a = run.table("artifacts").sort("line_no")
    assert a.select("path", "change", "description").rows() == [
        ("out/report.pdf", "presented", "Q3 report"), ("src/a.py", "modified", None), ("src/old.py", "deleted", None)]
    s = run.session("s-misc")
    assert s["tool_errors"] == 1 and s["events_unknown"] == 2 and s["artifacts"] == 3 and s["compactions"] == 1
    assert s["title"] == "Build fixes" and s["goal"] == "ship v2"
    assert rep.rows == {"artifacts": 3, "events": 11, "sessions": 1}
    assert a.schema["time"] == pl.Datetime("ms", "UTC")


# -- exclusions ---------------------------------------------------------------------
def test_exclusions_sessions_workspaces_and_paths(tmp_path: Path) -> None:
    settings = Settings.model_validate({"exclude": {"sessions": ["s-secret"], "workspaces": ["/home/u/private"],
                                                    "paths": ["/home/u/proj/.env"], "file_patterns": ["*.key"]}})
    r = Run(tmp_path, settings)
    write_registry(r.home, [{"id": "ws1", "path": "/home/u/proj", "title": "Proj", "sessionIds": ["s-open"]},
                            {"id": "ws2", "path": "/home/u/private", "title": "Private", "sessionIds": ["s-priv"]}])
    write_session(r.home, "ws1", "s-open", [
        call(1, "write", {"file_path": "/home/u/proj/.env", "content": "TOKEN=abc"}, cid="w1"),
        result(2, "w1", "wrote TOKEN=abc", name="write"),
        call(3, "edit", {"file_path": "/home/u/proj/ok.py"}),
        ev("workspace/changes", 4, {"files": [{"path": "id.key", "change": "added"},
                                              {"path": "ok.py", "change": "modified"}]}),
        ev("deliverables/presented", 5, {"files": [{"path": ".env", "description": "env"}]}),
    ])
    write_session(r.home, "ws1", "s-secret", [user(1, "secret stuff")])
    write_session(r.home, "ws2", "s-priv", [user(1, "private stuff")])
    rep, _ = r()
    assert r.table("sessions")["session_id"].to_list() == ["s-open"]
    assert set(r.table("events")["session_id"].to_list()) == {"s-open"}
    units = r.state()["units"]
    assert units["session:s-secret"]["status"] == "excluded" and units["session:s-priv"]["status"] == "excluded"
    e = r.events("s-open")
    assert e["file_path"].to_list()[:3] == [None, None, "/home/u/proj/ok.py"]
    assert e["arguments"].to_list()[0] is None and e["text"].to_list()[1] is None  # content of .env never lands
    assert r.table("artifacts")["path"].to_list() == ["ok.py"]
    assert json.loads(e["files_json"][4]) == []
    ws = r.table("workspaces")
    assert ws["workspace_id"].to_list() == ["ws1"] and ws["session_ids"].to_list() == [["s-open"]]
    assert rep.units_seen == 4


def test_session_that_becomes_excluded_is_dropped(run: Run) -> None:
    write_session(run.home, "ws1", "s-a", [user(1, "a")])
    write_session(run.home, "ws1", "s-b", [user(1, "b")])
    run()
    run.settings = Settings.model_validate({"exclude": {"sessions": ["s-b"]}})
    rep, _ = run()
    assert rep.units_removed == 1
    assert run.table("sessions")["session_id"].to_list() == ["s-a"]
    assert set(run.table("events")["session_id"].to_list()) == {"s-a"}
    st = run.state()
    assert "session:s-b" not in st["cursors"] and st["units"]["session:s-b"]["status"] == "excluded"


# -- projection and registry ------------------------------------------------------------
def test_projection_fields_missing_or_stale(run: Run) -> None:
    write_registry(run.home, [{"id": "ws1", "path": "/home/u/proj", "title": "Proj", "sessionIds": ["s-p", "s-n"],
                               "archived": False, "pinned": True}])
    write_session(run.home, "ws1", "s-p", [user(1, "hi"), assistant(2, 0, 0)])
    write_session(run.home, "ws1", "s-n", [user(1, "hi")])
    write_proj(run.home, "s-p", title="Old title", updatedAt=T0 + 5, stats={"events": 99, "toolCalls": 7},
               tokens={"input": 1, "output": 2},
               agentTeam={"lead": "s-p", "members": [{"name": "rev", "description": "r", "sessionId": "s-n"}]},
               subagent={"parentSession": "s-x", "name": "scout"}, todos=[{"text": "t", "status": "done"}],
               plan={"steps": [{"text": "p", "status": "todo"}]},
               sessionListMetadata={"archived": True, "pinned": False})
    run()
    p = run.session("s-p")
    assert p["proj_present"] is True and p["proj_title"] == "Old title" and p["title"] == "Old title"
    assert p["events"] == 2 and p["proj_events"] == 99  # the log is the truth; the stale count is kept aside
    assert p["team_lead"] == "s-p" and json.loads(p["agent_team_json"])["members"][0]["sessionId"] == "s-n"
    assert p["subagent_parent"] == "s-x" and p["subagent_name"] == "scout"
    assert json.loads(p["todos_json"]) == [{"status": "done", "text": "t"}] and p["plan_json"]
    assert p["archived"] is True and p["pinned"] is False and p["proj_updated_at"] is not None
    assert p["workspace_path"] == "/home/u/proj" and p["workspace_title"] == "Proj"
    assert p["rel_path"] == "sessions/ws1/s-p/session.v4.jsonl.zstd" and p["cwd"] == "/home/u/proj"
    n = run.session("s-n")
    assert n["proj_present"] is False and n["proj_title"] is None and n["title"] is None
    ws = run.table("workspaces").to_dicts()
    assert ws == [{"workspace_id": "ws1", "path": "/home/u/proj", "title": "Proj", "archived": False,
                   "pinned": True, "session_ids": ["s-n", "s-p"]}]


def test_corrupt_registry_fails_alone_and_keeps_last_good_rows(run: Run) -> None:
    write_registry(run.home, [{"id": "ws1", "path": "/p", "title": "P", "sessionIds": ["s-1"]}])
    write_session(run.home, "ws1", "s-1", [user(1, "a")])
    run()
    (run.home / "storages" / "workspace.json").write_text("{broken")
    rep, _ = run()
    assert [e["unit"] for e in rep.errors] == ["registry"] and rep.errors[0]["code"] == "KNOWLEDGE_SOURCE_CORRUPT"
    assert run.table("workspaces")["workspace_id"].to_list() == ["ws1"]
    assert run.session("s-1")["workspace_path"] is None  # re-extracted without registry facts
    (run.home / "storages" / "workspace.json").unlink()
    run()
    assert run.table("workspaces").height == 0 and "registry" not in run.state()["units"]


def test_changed_projection_reextracts_only_that_session(run: Run) -> None:
    write_session(run.home, "ws1", "s-1", [user(1, "a")])
    write_session(run.home, "ws1", "s-2", [user(1, "b")])
    write_proj(run.home, "s-1", title="v1")
    run()
    write_proj(run.home, "s-1", title="v2")
    rep, ctx = run()
    assert rep.units_changed == 1 and rep.units_unchanged == 1
    assert run.session("s-1")["proj_title"] == "v2"
    assert ctx.lake.files_written == 2  # sessions + events of s-1 only; it has no artifacts


# -- incrementality and read-only ----------------------------------------------------------
def _digest(root: Path) -> dict[str, tuple[str, int]]:
    return {str(p): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_noop_touch_append_and_vanish(run: Run) -> None:
    write_registry(run.home, [{"id": "ws1", "path": "/p", "title": "P", "sessionIds": ["s-1", "s-2"]}])
    p1 = write_session(run.home, "ws1", "s-1", [user(1, "a")])
    write_session(run.home, "ws1", "s-2", [user(1, "b")])
    before = _digest(run.home)
    rep, ctx = run()
    assert rep.units_changed == 3 and ctx.lake.files_written > 0
    assert _digest(run.home) == before  # the source is never written
    state_before = (run.paths.state_dir / "dsh.json").read_bytes()

    rep, ctx = run()  # no-op: zero files, same state bytes
    assert ctx.lake.files_written == 0 and rep.units_unchanged == 3 and rep.units_changed == 0
    assert (run.paths.state_dir / "dsh.json").read_bytes() == state_before

    st = p1.stat()  # touched, same bytes: read + hashed, not rewritten
    os.utime(p1, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    rep, ctx = run()
    assert ctx.lake.files_written == 0 and rep.units_unchanged == 3

    with open(p1, "ab") as fh:  # an append is a new frame
        fh.write(zstandard.ZstdCompressor().compress(_line(user(2, "more"))))
    rep, ctx = run()
    assert rep.units_changed == 1 and ctx.lake.files_written == 2
    assert run.session("s-1")["events"] == 2 and run.session("s-1")["frames"] == 2

    (run.home / "sessions" / "ws1" / "s-2" / "session.v4.jsonl.zstd").unlink()
    rep, _ = run()
    assert rep.units_removed == 1
    assert run.table("sessions")["session_id"].to_list() == ["s-1"]
    assert "session:s-2" not in run.state()["units"]


def test_deleted_lake_file_is_rebuilt(run: Run) -> None:
    write_session(run.home, "ws1", "s-1", [user(1, "a")])
    run()
    for f in (run.paths.lake / "bronze" / "dsh" / "sessions").glob("s-1-*.parquet"):
        f.unlink()
    rep, _ = run()
    assert rep.units_changed == 1 and run.session("s-1")["events"] == 1


def test_missing_home_is_unavailable(tmp_path: Path) -> None:
    r = Run(tmp_path)
    r.home.rmdir()
    rep, ctx = r()
    assert rep.degraded and rep.errors[0]["code"] == "KNOWLEDGE_SOURCE_UNAVAILABLE" and ctx.lake.files_written == 0


def test_speed_cold_and_noop(run: Run) -> None:
    for i in range(40):
        evs = []
        for j in range(0, 500, 5):
            evs += [user(j + 1, f"task {i} {j}"), assistant(j + 2, j, 0, "answer " * 20),
                    call(j + 3, "bash", {"command": f"make {j}"}), result(j + 4, f"c-{j + 3}", "ok " * 30),
                    user(j + 5, "ctx", kind="time-context")]
        write_session(run.home, f"ws{i % 4}", f"s-{i:03d}", evs, frames=3)
    t = time.perf_counter()
    rep, _ = run()
    cold = time.perf_counter() - t
    assert rep.rows["events"] == 20_000 and cold < 6.0
    t = time.perf_counter()
    _, ctx = run()
    assert time.perf_counter() - t < 0.3 and ctx.lake.files_written == 0


# -- generated home (akw_fixtures) ---------------------------------------------------------
def test_generated_home_reconciles_with_manifest(tmp_path: Path) -> None:
    gen = pytest.importorskip("akw_fixtures")
    m = gen.generate(tmp_path / "gen", sessions=8, seed=3, broken=True)
    r = Run(tmp_path)
    r.home = tmp_path / "gen" / "dsh"
    r.paths = Paths(dsh_home=r.home, autoclaw_root=tmp_path / "gen" / "autoclaw", home=tmp_path / "akw")
    rep, _ = r()
    broken = {b["kind"]: b for b in m["broken"] if "session_id" in b}
    assert [e["unit"] for e in rep.errors] == [f"session:{broken['corrupt_zstd']['session_id']}"]
    bad = r.session(broken["bad_json_line"]["session_id"])
    assert bad["lines_bad"] == 1 and bad["events"] == broken["bad_json_line"]["valid_events"]
    s = r.table("sessions").filter(~pl.col("session_id").is_in([b["session_id"] for b in broken.values()]))
    c = m["counts"]
    assert s.height == c["dsh_sessions"]
    assert s["events"].sum() == c["dsh_events_unique"]
    assert s["events_replayed"].sum() == c["dsh_replayed_events"]
    assert s["human_messages"].sum() == c["dsh_human_messages"]
    assert s["injected_messages"].sum() == c["dsh_injected_messages"]
    assert s["truncated_tail"].sum() == c["dsh_truncated_sessions"]
    assert s["frames"].sum() == c["dsh_frames_total"]
    assert s.filter(pl.col("parent_session").is_not_null()).height == c["dsh_forked_sessions"]
    lines = (1 + s["events"] + s["events_replayed"] + s["events_duplicate"] + s["lines_bad"]).sum()
    assert lines == c["dsh_lines_total"]
    assert r.table("workspaces").height == len(m["workspaces"])
    # secrets planted in the session logs never reach the lake or the state
    texts = pl.concat([r.table(t).select(pl.all().cast(pl.String)).unpivot() for t in ("sessions", "events",
                                                                                      "artifacts")])
    joined = "\n".join(v for v in texts["value"].to_list() if v)
    planted = [c["value"] for c in m["canaries"] if str(c["where"].get("file", "")).startswith("dsh/sessions")]
    assert planted and not [v for v in planted if v in joined]
    assert not [v for v in planted if v in (r.paths.state_dir / "dsh.json").read_text()]
    _, ctx = r()
    assert ctx.lake.files_written == 0
