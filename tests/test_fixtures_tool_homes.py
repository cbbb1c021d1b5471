"""The generator's Claude Code / Codex homes (`generate(claude_code_sessions=, codex_sessions=)`): opt-in (a run
without them is unchanged), deterministic, counted as the real parsers count, and every planted pitfall present."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from akw_fixtures import generate
from akw_fixtures.tool_homes import encode_cwd

from warehouse.extract.claude_code import job as cc_job
from warehouse.extract.claude_code.parse import parse_file as cc_parse
from warehouse.extract.claude_code.parse import subagent_names
from warehouse.extract.codex import job as cx_job
from warehouse.extract.codex.parse import parse_file as cx_parse
from warehouse.extract.codex.parse import session_id_of
from warehouse.extract.session_files import complete_lines

SEED = 5
DSH = 6  # DSH sessions: small, every DSH pitfall still planted
TOOL_KEYS = ("tool_tasks", "tool_sessions", "tool_actors", "tool_skills")
COUNTED = {"human_messages": "human_requests", "tool_calls": "tool_calls", "tool_errors": "tool_errors",
           "skill_uses": "skill_uses"}
WAL = (".sqlite-wal", ".sqlite-shm")  # SQLite's WAL salts differ run to run (already true without tool homes)


# -- helpers ------------------------------------------------------------------------
def snapshot(root: Path, skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    """Every file (and link) under `root` except the top folders in `skip`: path -> bytes (a link: its target)."""
    out: dict[str, bytes] = {}
    for d, dirs, files in os.walk(root):
        rel_d = Path(d).relative_to(root)
        if rel_d == Path(".") and skip:
            dirs[:] = [x for x in dirs if x not in skip]
        for name in [*files, *(x for x in dirs if (Path(d) / x).is_symlink())]:
            p = Path(d) / name
            key = (rel_d / name).as_posix()
            out[key] = os.readlink(p).encode() if p.is_symlink() else p.read_bytes()
    return out


def same_but_wal(a: dict[str, bytes], b: dict[str, bytes]) -> list[str]:
    """Paths that differ (in set or bytes), ignoring SQLite WAL/SHM bytes."""
    return sorted(k for k in a.keys() | b.keys()
                  if k not in a or k not in b or (a[k] != b[k] and not k.endswith(WAL)))


def strip_tools(m: dict[str, Any]) -> dict[str, Any]:
    m = {k: v for k, v in m.items() if k not in TOOL_KEYS}
    m["counts"] = {k: v for k, v in m["counts"].items() if not k.startswith(("claude_code_", "codex_"))}
    m["paths"] = {k: v for k, v in m["paths"].items() if k not in ("claude_home", "codex_home")}
    return m


def parse(rec: dict[str, Any], out: Path, data: bytes | None = None) -> Any:
    data = (out / rec["file"]).read_bytes() if data is None else data
    return (cc_parse if rec["origin"] == "claude_code" else cx_parse)(rec["session_id"], data)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in complete_lines(path.read_bytes()).decode("utf-8").splitlines()]


def warehouse_names(out: Path) -> dict[str, tuple[str, str]]:
    """rel file (under out) -> (session_id, actor_id) as the extract jobs name them (parents before subagents)."""
    res: dict[str, tuple[str, str]] = {}
    names: dict[str, str] = {}
    root = out / "claude"
    for f in sorted(cc_job.discover(root), key=lambda f: (f.agent_id is not None, f.rel)):
        parsed = cc_parse(f.session_id or "", complete_lines(f.path.read_bytes()))
        ident = cc_job.identify(f, parsed, names)
        assert ident is not None, f.rel
        names.update(subagent_names(parsed))
        actor = (f"actor:harness:subagent:{ident.parent}:{ident.name}" if ident.parent
                 else f"actor:harness:root:{ident.session_id}")
        res[f"claude/{f.rel}"] = (ident.session_id, actor)
    root = out / "codex"
    for f in cx_job.discover(root):
        data = complete_lines(f.path.read_bytes())
        ident = cx_job.identify(f, cx_parse("", data), {})
        assert ident is not None and ident.session_id == session_id_of(f.path.name, data[:4096])
        res[f"codex/{f.rel}"] = (ident.session_id, f"actor:harness:root:{ident.session_id}")
    return res


# -- data ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def seq(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One folder generated in turn: default, explicit zeros, with tool homes (twice), default again."""
    out = tmp_path_factory.mktemp("seq") / "fx"
    r: dict[str, Any] = {"out": out}
    generate(out, sessions=DSH, seed=SEED)
    r["m0"], r["s0"] = (out / "manifest.json").read_bytes(), snapshot(out)
    generate(out, sessions=DSH, seed=SEED, claude_code_sessions=0, codex_sessions=0)
    r["m0b"], r["s0b"] = (out / "manifest.json").read_bytes(), snapshot(out)
    generate(out, sessions=DSH, seed=SEED, claude_code_sessions=9, codex_sessions=7)
    r["mt"], r["st"] = (out / "manifest.json").read_bytes(), snapshot(out)
    generate(out, sessions=DSH, seed=SEED, claude_code_sessions=9, codex_sessions=7)
    r["mt2"], r["st2"] = (out / "manifest.json").read_bytes(), snapshot(out)
    generate(out, sessions=DSH, seed=SEED)
    r["m_after"], r["s_after"] = (out / "manifest.json").read_bytes(), snapshot(out)
    return r


@pytest.fixture(scope="module", params=[(4, 4), (9, 7)], ids=["min4", "cycle"])
def homes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    cc, cx = request.param
    out = tmp_path_factory.mktemp(f"homes{cc}_{cx}") / "fx"
    return out, generate(out, sessions=DSH, seed=SEED, claude_code_sessions=cc, codex_sessions=cx)


# -- opt-in: a run without tool homes is today's run --------------------------------
def test_default_unchanged(seq: dict[str, Any]) -> None:
    assert seq["m0"] == seq["m0b"]
    assert same_but_wal(seq["s0"], seq["s0b"]) == []
    m0 = json.loads(seq["m0"])
    assert not set(TOOL_KEYS) & m0.keys()
    assert not [k for k in m0["counts"] if k.startswith(("claude_code_", "codex_"))]
    assert not {"claude", "codex"} & {k.split("/", 1)[0] for k in seq["s0"]}


def test_tool_homes_write_nothing_else(seq: dict[str, Any]) -> None:
    outside = {k: v for k, v in seq["st"].items() if k.split("/", 1)[0] not in ("claude", "codex")}
    base = {k: v for k, v in seq["s0"].items() if k != "manifest.json"}
    assert same_but_wal({k: v for k, v in outside.items() if k != "manifest.json"}, base) == []
    assert strip_tools(json.loads(seq["mt"])) == json.loads(seq["m0"])
    assert {k.split("/", 1)[0] for k in seq["st"]} >= {"claude", "codex"}


def test_default_run_after_tool_run_removes_its_homes(seq: dict[str, Any]) -> None:
    assert seq["m_after"] == seq["m0"]
    assert same_but_wal(seq["s_after"], seq["s0"]) == []


def test_deterministic(seq: dict[str, Any]) -> None:
    assert seq["mt"] == seq["mt2"]
    tools = {k: v for k, v in seq["st"].items() if k.split("/", 1)[0] in ("claude", "codex")}
    assert tools == {k: v for k, v in seq["st2"].items() if k.split("/", 1)[0] in ("claude", "codex")}
    assert len(tools) > 20


def test_seed_changes_content(seq: dict[str, Any], tmp_path: Path) -> None:
    m = json.loads(seq["mt"])
    other = generate(tmp_path / "fx", sessions=DSH, seed=SEED + 1, claude_code_sessions=4, codex_sessions=4)
    assert {s["session_id"] for s in other["tool_sessions"]}.isdisjoint({s["session_id"] for s in m["tool_sessions"]})


# -- the manifest against the real parsers ------------------------------------------
def test_round_trip_counts(homes: tuple[Path, dict[str, Any]]) -> None:
    out, m = homes
    for rec in m["tool_sessions"]:
        raw = (out / rec["file"]).read_bytes()
        st = parse(rec, out).stats
        assert {k: st[k] for k in COUNTED} == {k: rec[v] for k, v in COUNTED.items()}, rec["file"]
        assert st["truncated_tail"] is rec["live_tail"] and st["lines_bad"] == int(rec["live_tail"]), rec["file"]
        whole = parse(rec, out, complete_lines(raw)).stats  # what the job reads: the live tail waits
        assert {k: whole[k] for k in COUNTED} == {k: st[k] for k in COUNTED}
        assert not whole["truncated_tail"] and whole["lines_bad"] == 0
    for origin in ("claude_code", "codex"):
        files = [s for s in m["tool_sessions"] if s["origin"] == origin]
        for field in COUNTED.values():
            assert m["counts"][f"{origin}_{field}"] == sum(s[field] for s in files)
        assert m["counts"][f"{origin}_tasks"] == sum(t["origin"] == origin for t in m["tool_tasks"])
        assert m["counts"][f"{origin}_human_requests"] == sum(
            t["origin"] == origin and t["request_kind"] == "human" for t in m["tool_tasks"])
        assert m["counts"][f"{origin}_files"] == len(files)
    assert m["counts"]["claude_code_subagents"] == sum(s["kind"] == "subagent" for s in m["tool_sessions"])
    assert m["counts"]["tasks_total"] == len(m["tasks"])  # the DSH/AutoClaw tasks only


def test_round_trip_requests(homes: tuple[Path, dict[str, Any]]) -> None:
    """The parser's human messages are the manifest's requests, in order; a subagent's prompt is its task."""
    out, m = homes
    by_session: dict[str, list[dict[str, Any]]] = {}
    for t in m["tool_tasks"]:
        by_session.setdefault(t["session_id"], []).append(t)
    for rec in m["tool_sessions"]:
        tasks = sorted(by_session.get(rec["session_id"], []), key=lambda t: int(t["task_id"].rsplit(":", 1)[1]))
        events = parse(rec, out).events
        humans = [e["text"] for e in events if e["role"] == "human"]
        if rec["kind"] == "subagent":
            prompt = next(e["text"] for e in events if e["kind"] == "user/message")
            assert [t["request"] for t in tasks] == [prompt] and humans == []
            assert tasks[0]["request_kind"] == "subagent_prompt"
        else:
            assert humans == [t["request"] for t in tasks], rec["file"]
        for t in tasks:
            assert t["actor_id"] == rec["actor_id"] and t["file"] == rec["file"]
            assert t["workspace_id"] == rec["workspace_id"] and t["workspace_path"] == rec["cwd"]


def test_names_as_the_warehouse_gives_them(homes: tuple[Path, dict[str, Any]]) -> None:
    out, m = homes
    named = warehouse_names(out)
    assert named == {s["file"]: (s["session_id"], s["actor_id"]) for s in m["tool_sessions"]}
    actors = {a["actor_id"] for a in m["tool_actors"]}
    assert {t["actor_id"] for t in m["tool_tasks"]} <= actors == {s["actor_id"] for s in m["tool_sessions"]}
    for s in m["tool_sessions"]:
        if s["origin"] == "claude_code" and s["kind"] == "main":
            assert s["file"] == f"claude/projects/{encode_cwd(s['cwd'])}/{s['session_id']}.jsonl"
        if s["kind"] == "subagent":
            assert s["file"].endswith(f"/{s['parent_session_id']}/subagents/agent-{s['agent_id']}.jsonl")
            assert s["actor_id"] == f"actor:harness:subagent:{s['parent_session_id']}:{s['subagent_type']}"
        if s["origin"] == "codex":
            assert s["file"].endswith(f"-{s['session_id']}.jsonl") and s["file"].startswith("codex/sessions/20")


def test_task_shape(homes: tuple[Path, dict[str, Any]]) -> None:
    out, m = homes
    ws = {w["id"]: w for w in m["workspaces"]}
    shared = {"template", "language", "outcome", "workspace_id", "workspace_path", "identifiers", "started_at",
              "finished_at", "session_id", "actor_id", "title", "request", "skills", "skill_via", "source"}
    assert shared <= set(next(t for t in m["tasks"] if t["source"] == "harness"))  # the keys the DSH tasks have
    for t in m["tool_tasks"]:
        assert shared | {"origin", "workspace", "request_kind", "interrupted", "file"} <= set(t)
        assert ws[t["workspace_id"]]["name"] == t["workspace"] and t["identifiers"]
        assert t["outcome"] in ("success", "partial", "failure")
    for origin in ("claude_code", "codex"):
        mine = [t for t in m["tool_tasks"] if t["origin"] == origin]
        assert {t["language"] for t in mine} == {"ru", "en"}
        assert {"success", "failure"} <= {t["outcome"] for t in mine}
        assert max(Counter(t["session_id"] for t in mine).values()) >= 2  # several requests in one session
    tids = {t["task_id"] for t in m["tool_tasks"]}
    assert tids.isdisjoint({t["task_id"] for t in m["tasks"]})
    for s in m["tool_skills"]:
        assert (out / s["path"] / "SKILL.md").is_file() and s["used_in_tasks"] and set(s["used_in_tasks"]) <= tids


# -- every pitfall ------------------------------------------------------------------
def _files(m: dict[str, Any], origin: str, kind: str | None = None) -> list[dict[str, Any]]:
    return [s for s in m["tool_sessions"] if s["origin"] == origin and (kind is None or s["kind"] == kind)]


def test_claude_pitfalls(homes: tuple[Path, dict[str, Any]]) -> None:
    out, m = homes
    seen: Counter[str] = Counter()
    for rec in _files(m, "claude_code", "main"):
        events = parse(rec, out).events
        texts = [(e["role"], e.get("source_kind"), e.get("text") or "") for e in events if e["kind"] == "user/message"]
        seen["reminder"] += any(r == "injected" and x.startswith("<system-reminder>") for r, _k, x in texts)
        seen["clear"] += any(r == "injected" and k == "command" and "/clear" in x for r, k, x in texts)
        seen["interrupt"] += any(r == "injected" and k == "interrupt" for r, k, _x in texts)
        seen["compaction"] += sum(e["kind"] == "compaction/completed" for e in events)
        seen["skill_slash"] += any(e.get("skill_via") == "slash" and e["role"] == "human" for e in events)
        seen["skill_tool"] += any(e.get("skill_via") == "tool" and e["tool_name"] == "Skill" for e in events
                                  if e["kind"] == "tool/call")
        seen["unknown"] += "hologram" in parse(rec, out).stats["unknown_types"]
        raw = lines(out / rec["file"])
        types = Counter(x["type"] for x in raw)
        seen["snapshot"] += types["file-history-snapshot"] > 0
        seen["progress"] += types["progress"] > 0
        seen["is_error"] += any(b.get("is_error") is True for x in raw if x["type"] == "user"
                                for b in (x["message"]["content"] if isinstance(x["message"]["content"], list) else []))
        for i, x in enumerate(raw):
            if x.get("subtype") == "compact_boundary":
                assert x["parentUuid"] is None and raw[i + 1]["isCompactSummary"] is True
        for r, _k, x in texts:  # no harness text is ever a request
            assert r != "human" or not x.startswith(("<", "[Request interrupted", "This session is being continued"))
    for pit in ("reminder", "clear", "interrupt", "compaction", "skill_slash", "skill_tool", "unknown", "snapshot",
                "progress", "is_error"):
        assert seen[pit] >= 1, pit
    tails = [s for s in _files(m, "claude_code") if not (out / s["file"]).read_bytes().endswith(b"\n")]
    assert [s["file"] for s in tails] == [s["file"] for s in _files(m, "claude_code") if s["live_tail"]]
    assert len(tails) == 1


def test_claude_subagents_and_warmup(homes: tuple[Path, dict[str, Any]]) -> None:
    out, m = homes
    subs = _files(m, "claude_code", "subagent")
    assert subs
    for s in subs:
        parent = next(p for p in _files(m, "claude_code", "main") if p["session_id"] == s["parent_session_id"])
        raw = lines(out / parent["file"])
        calls = {b["id"]: b["input"] for x in raw if x["type"] == "assistant" for b in x["message"]["content"]
                 if b["type"] == "tool_use" and b["name"] == "Task"}
        results = [x for x in raw if x["type"] == "user" and isinstance(x.get("toolUseResult"), dict)
                   and x["toolUseResult"].get("agentId") == s["agent_id"]]
        assert len(results) == 1
        call = calls[results[0]["message"]["content"][0]["tool_use_id"]]
        assert call["subagent_type"] == s["subagent_type"]
        own = lines(out / s["file"])
        assert all(x["isSidechain"] and x["agentId"] == s["agent_id"] and x["sessionId"] == parent["session_id"]
                   for x in own)
        assert own[0]["message"]["content"] == call["prompt"] and any(x["type"] == "progress" for x in own)
    warm = _files(m, "claude_code", "sidechain")
    assert len(warm) == 1
    w = warm[0]
    main = next(p for p in _files(m, "claude_code", "main") if p["session_id"] == w["parent_session_id"])
    assert Path(w["file"]).parent == Path(main["file"]).parent
    assert Path(w["file"]).name == f"agent-{w['agent_id']}.jsonl"
    own = lines(out / w["file"])
    assert own[0]["message"]["content"] == "Warmup" and all(x["isSidechain"] for x in own)
    for s in m["tool_skills"]:
        if s["origin"] == "claude_code":
            assert s["path"].startswith("claude/skills/")


def test_codex_pitfalls(homes: tuple[Path, dict[str, Any]]) -> None:
    out, m = homes
    seen: Counter[str] = Counter()
    for rec in _files(m, "codex"):
        parsed = parse(rec, out)
        injected = [e["text"] or "" for e in parsed.events if e["role"] == "injected"]
        humans = [e["text"] or "" for e in parsed.events if e["role"] == "human"]
        seen["env"] += any("<environment_context>" in x for x in injected)
        seen["agents_md"] += any(x.startswith("# AGENTS.md instructions for") for x in injected)
        seen["aborted"] += any(x.startswith("<turn_aborted>") for x in injected)
        assert not [x for x in humans if x.startswith(("<", "# AGENTS.md"))]
        seen["unknown"] += "hologram" in parsed.stats["unknown_types"]
        seen["is_error"] += parsed.stats["tool_errors"]
        seen["skill_read"] += parsed.stats["skill_uses"]
        assert parsed.stats["model"] and parsed.header["session_id"] == rec["session_id"]
        raw = lines(out / rec["file"])
        kinds = Counter((x["type"], x["payload"].get("type")) for x in raw)
        for k in (("session_meta", None), ("turn_context", None), ("event_msg", "user_message"),
                  ("event_msg", "agent_message"), ("event_msg", "token_count"), ("response_item", "message"),
                  ("response_item", "reasoning")):
            assert kinds[k] >= 1, (rec["file"], k)
        calls = [x["payload"] for x in raw if x["type"] == "response_item"]
        assert any(p["type"] == "function_call" and p["name"] == "exec_command" and "cmd" in json.loads(p["arguments"])
                   for p in calls)
        assert {p["call_id"] for p in calls if p["type"] == "function_call"} == {
            p["call_id"] for p in calls if p["type"] == "function_call_output"}
        seen["apply_patch"] += any(p["type"] == "custom_tool_call" and p["name"] == "apply_patch"
                                   and p["input"].startswith("*** Begin Patch") for p in calls)
    n = len(_files(m, "codex"))
    assert seen["env"] == seen["agents_md"] == n
    for pit in ("aborted", "unknown", "is_error", "skill_read", "apply_patch"):
        assert seen[pit] >= 1, pit
    tails = [s for s in _files(m, "codex") if not (out / s["file"]).read_bytes().endswith(b"\n")]
    assert len(tails) == 1 and tails[0]["live_tail"]
    assert (out / "codex" / "skills").is_dir()


def test_bad_counts_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        generate(tmp_path / "fx", sessions=1, claude_code_sessions=-1)
