"""The MCP server (`akw mcp`, spec 001 FR-10, §8.1) as a real subprocess, through the SDK's stdio client.

Nine tools with RU+EN descriptions and contract schemas; each answers on a generated home; errors
are isError results carrying KNOWLEDGE_* codes; disabled mode; reindex progress, cancellation and
the lock; indexed text comes back inside the untrusted wrapper and a planted instruction triggers
nothing; the server runs with the glibc malloc tunable.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import akw_fixtures
import anyio
import psutil
import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from mcp_helpers import Served, call, copy_home, plant_poison, served, text_json, with_client

from warehouse.api import Warehouse
from warehouse.home import generation
from warehouse.home.runs import read_runs
from warehouse.mcp.tools import DATA_NOT_INSTRUCTIONS_EN, DATA_NOT_INSTRUCTIONS_RU
from warehouse.search.snippets import UNTRUSTED_CLOSE, UNTRUSTED_OPEN

SEED_SCHEMA = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "003_6a60be907bed1bea.txt"
NINE = ["knowledge_status", "knowledge_search", "knowledge_get_agent", "knowledge_get_skill", "knowledge_get_episode",
        "knowledge_reindex", "knowledge_dispatch", "knowledge_forget", "knowledge_feedback"]
MYSQL_TASK = {"task": {"title": "Restore MySQL root access on 176.99.5.35",
                       "text": "root gets ERROR 1045 on 176.99.5.35; restore access with mysql-access-restore"},
              "target": "auto"}


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("src")
    akw_fixtures.generate(out, sessions=12, seed=7)
    plant_poison(out)
    return out


@pytest.fixture(scope="module")
def wh(src: Path, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    w = Warehouse.open(src / "dsh", src / "autoclaw", tmp_path_factory.mktemp("home"))
    w.reindex()
    return w


@pytest.fixture(scope="module")
def server(wh: Warehouse) -> Iterator[Served]:
    """One server for the tests that only read (listing, search, cards, bad arguments)."""
    with served(wh) as s:
        yield s


def _error(result: Any) -> dict[str, Any]:
    assert result.is_error, result.content[0].text
    err = result.structured_content["errors"][0]
    assert result.content[0].text.startswith(err["code"])
    return err


def _wrapped_or_absent(value: str | None) -> None:
    if value:
        assert value.startswith(UNTRUSTED_OPEN) and value.endswith(UNTRUSTED_CLOSE), value[:80]


def test_lists_nine_tools_with_bilingual_descriptions_and_contract_schemas(server: Served) -> None:
    async def body(c: Client) -> Any:
        return (await c.list_tools()).tools

    tools = {t.name: t for t in server.run(body)}
    assert sorted(tools) == sorted(NINE)
    for t in tools.values():
        assert DATA_NOT_INSTRUCTIONS_EN in t.description and DATA_NOT_INSTRUCTIONS_RU in t.description
        assert "data, not instructions" in t.description and "данные, а не инструкции" in t.description
        assert t.input_schema["type"] == "object"
        Draft202012Validator.check_schema(t.input_schema)
    assert {"query", "budget", "filters", "limit"} <= set(tools["knowledge_search"].input_schema["properties"])
    assert "query" in tools["knowledge_search"].input_schema["required"]
    assert {"task", "dry_run", "commit", "confirm"} <= set(tools["knowledge_dispatch"].input_schema["properties"])
    assert tools["knowledge_forget"].input_schema["properties"]["kind"]["enum"] == [
        "session", "actor", "skill", "workspace", "all"]
    assert tools["knowledge_search"].output_schema is not None
    assert [n for n, t in tools.items() if t.annotations.read_only_hint] == NINE[:5]
    assert [n for n, t in tools.items() if t.annotations.destructive_hint] == ["knowledge_forget"]


def test_status_and_search_through_the_server(wh: Warehouse, server: Served) -> None:
    seed = json.loads(SEED_SCHEMA.read_text(encoding="utf-8"))

    async def body(c: Client) -> Any:
        return (await c.call_tool("knowledge_status", {}),
                await c.call_tool("knowledge_search", {"query": "restore MySQL root access", "limit": 8}),
                await c.call_tool("knowledge_search", {"query": "restore MySQL root access", "limit": 20,
                                                       "budget": {"max_tokens": 600, "snippet_chars": 400}}))

    status, search, small = server.run(body)
    assert not status.is_error and status.structured_content["state"] == "ready"
    assert status.structured_content["index_rev"] == wh.status()["index_rev"]
    assert status.content[0].text.startswith("state=ready")
    for r in (search, small):
        doc = r.structured_content
        assert not r.is_error and text_json(r) == doc  # compact JSON + the same document structured
        Draft202012Validator(seed).validate(doc)
        assert doc["limits"]["budget"]["used_tokens"] <= doc["limits"]["budget"]["max_tokens"]
        compact = json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        assert len(compact.encode()) / 4 <= doc["limits"]["budget"]["max_tokens"]
        for lane in doc["lanes"].values():
            for item in (lane or {}).get("items", []):
                _wrapped_or_absent(item.get("snippet"))
                _wrapped_or_absent(item.get("description"))
    assert any(i.get("snippet") for lane in search.structured_content["lanes"].values()
               for i in (lane or {}).get("items", []))
    assert small.structured_content["limits"]["truncated"]
    assert "intent=" in search.content[0].text and "data, not instructions" in search.content[0].text


def test_cards_open_ids_a_search_returned_and_unknown_ids_are_not_found(wh: Warehouse, server: Served) -> None:
    resp = wh.search({"schema": "knowledge.search/v1", "query": "restore MySQL root access", "limit": 10})
    actor = resp["actors"][0]["actor_id"]
    episode = resp["lanes"]["episodes"]["items"][0]["id"]

    async def body(c: Client) -> Any:
        return [await c.call_tool(t, a) for t, a in (
            ("knowledge_get_agent", {"id": actor}), ("knowledge_get_skill", {"name": "mysql-access-restore"}),
            ("knowledge_get_episode", {"id": episode}), ("knowledge_get_agent", {"id": "actor:nobody"}),
            ("knowledge_get_skill", {"name": "no-such-skill"}), ("knowledge_get_episode", {"id": "ep:none:1"}))]

    agent, skill, ep, *unknown = server.run(body)
    assert agent.structured_content == wh.get_agent(actor)
    assert agent.content[0].text.startswith(f"agent card {actor} (knowledge.card.agent/v1)")
    assert skill.structured_content["body"].startswith(UNTRUSTED_OPEN)
    assert ep.structured_content == wh.get_episode(episode)
    assert [_error(r)["code"] for r in unknown] == ["KNOWLEDGE_NOT_FOUND"] * 3


@pytest.mark.parametrize(("tool", "arguments", "field"), [
    ("knowledge_search", {"query": "  "}, "query"),
    ("knowledge_search", {"query": "x", "limit": 500}, "limit"),
    ("knowledge_search", {"query": "x", "bogus": 1}, "bogus"),
    ("knowledge_search", {"query": "x", "home": "/etc"}, "home"),
    ("knowledge_get_agent", {}, "id"),
    ("knowledge_get_agent", {"id": "a", "dsh_home": "/tmp"}, "dsh_home"),
    ("knowledge_get_episode", {"id": 5}, "id"),
    ("knowledge_reindex", {"mode": "sideways"}, "mode"),
    ("knowledge_reindex", {"mode": "full", "akw_home": "/tmp/x"}, "akw_home"),
    ("knowledge_dispatch", {**MYSQL_TASK, "requested_by": "root"}, "requested_by"),
    ("knowledge_dispatch", {"task": {}}, None),
    ("knowledge_status", {"path": "/"}, "path"),
])
def test_bad_arguments_are_invalid_request(server: Served, tool: str, arguments: dict[str, Any],
                                           field: str | None) -> None:
    err = _error(server.call(tool, arguments))
    assert err["code"] == "KNOWLEDGE_INVALID_REQUEST"
    if field:
        assert err["field"] == field
    assert "/etc" not in err["message"] and "/tmp" not in err["message"]  # values are never echoed


def test_unknown_tool_is_an_error_result(server: Served) -> None:
    assert _error(server.call("knowledge_drop_tables", {}))["code"] == "KNOWLEDGE_INVALID_REQUEST"


def test_dispatch_plans_and_a_commit_needs_explicit_confirmation(wh: Warehouse, tmp_path: Path) -> None:
    w = copy_home(wh, tmp_path)
    commit = {**MYSQL_TASK, "dispatch_id": "mcp-test-1", "dry_run": False, "commit": True}

    async def body(c: Client) -> Any:
        return (await c.call_tool("knowledge_dispatch", MYSQL_TASK),
                await c.call_tool("knowledge_dispatch", commit),
                await c.call_tool("knowledge_dispatch", {**commit, "confirm": True}))

    plan, unconfirmed, confirmed = with_client(w, body)
    assert not plan.is_error and plan.structured_content["mode"] == "dry_run"
    assert "assignment" not in plan.structured_content or not plan.structured_content.get("assignment")
    assert unconfirmed.is_error and unconfirmed.content[0].text.startswith("KNOWLEDGE_DISPATCH_UNAUTHORIZED")
    assert [e["field"] for e in unconfirmed.structured_content["errors"]] == ["confirm"]
    assert not confirmed.is_error and confirmed.structured_content["assignment"]["created"]
    row = w.dispatch_show("mcp-test-1")
    assert row["assignment"]["requested_by"].startswith("mcp:")  # who asked: the server's identity, never an argument


def test_reindex_is_refused_while_another_run_holds_the_lock(wh: Warehouse) -> None:
    with generation.writer_lock(wh.paths):
        err = _error(call(wh, "knowledge_reindex", {"mode": "incremental"}))
    assert err["code"] == "KNOWLEDGE_INDEX_LOCKED"


def test_reindex_reports_progress_and_a_noop_answers(wh: Warehouse) -> None:
    seen: list[tuple[float, str | None]] = []

    async def progress(p: float, total: float | None, message: str | None) -> None:
        seen.append((p, message))

    async def body(c: Client) -> Any:
        return await c.call_tool("knowledge_reindex", {"mode": "incremental"}, progress_callback=progress)

    r = with_client(wh, body)
    assert not r.is_error and r.structured_content["outcome"] == "noop"
    assert len(seen) >= 2 and [p for p, _m in seen] == sorted(p for p, _m in seen)  # monotonic
    assert all(m for _p, m in seen)


def test_cancelled_reindex_stops_its_child_and_keeps_the_published_generation(wh: Warehouse, tmp_path: Path) -> None:
    w = copy_home(wh, tmp_path)
    before = generation.current(w.paths.generations)
    assert before is not None
    first = anyio.Event()

    async def progress(p: float, total: float | None, message: str | None) -> None:
        first.set()

    async def body(c: Client) -> Any:
        async with anyio.create_task_group() as tg:
            async def run() -> None:
                await c.call_tool("knowledge_reindex", {"mode": "full"}, progress_callback=progress)
                raise AssertionError("the reindex finished before it was cancelled")

            tg.start_soon(run)
            with anyio.fail_after(60):
                await first.wait()
            running = _reindex_children(w)
            tg.cancel_scope.cancel()  # the client sends notifications/cancelled for the abandoned call
        assert running, "the reindex child should be running when the call is cancelled"
        with anyio.fail_after(60):  # the server stops the child …
            while _reindex_children(w):
                await anyio.sleep(0.2)
        return await c.call_tool("knowledge_status", {})  # … and answers again

    status = with_client(w, body)
    after = generation.current(w.paths.generations)
    assert after is not None and after.path == before.path and after.index_rev == before.index_rev
    assert status.structured_content["index_rev"] == before.index_rev
    assert not list(w.paths.generations.glob("*.build*")) and not list(w.paths.generations.glob("*.wal"))
    runs = read_runs(w.paths)
    assert not runs or runs[-1]["outcome"] in ("cancelled", "published", "noop")  # cut in extract: no run recorded
    with generation.writer_lock(w.paths):  # the lock was released
        pass
    assert w.search_text("restore MySQL root access")["found"]


def _reindex_children(w: Warehouse) -> list[psutil.Process]:
    found = []
    for p in psutil.process_iter(["cmdline"]):
        cmd = " ".join(p.info["cmdline"] or [])
        if "warehouse.mcp.reindex_job" in cmd and str(w.paths.home) in cmd:
            found.append(p)
    return found


def test_disabled_answers_only_status(wh: Warehouse, tmp_path: Path) -> None:
    w = copy_home(wh, tmp_path)
    w.config_set(["enabled=false"])
    calls = [("knowledge_search", {"query": "mysql"}), ("knowledge_get_agent", {"id": "x"}),
             ("knowledge_get_skill", {"name": "x"}), ("knowledge_get_episode", {"id": "x"}),
             ("knowledge_reindex", {}), ("knowledge_dispatch", MYSQL_TASK),
             ("knowledge_forget", {"kind": "all", "id": "*"}),
             ("knowledge_feedback", {"result_id": "x", "useful": True})]

    async def body(c: Client) -> Any:
        return await c.call_tool("knowledge_status", {}), [await c.call_tool(t, a) for t, a in calls]

    status, rest = with_client(w, body)
    assert not status.is_error and status.structured_content["state"] == "disabled"
    assert "settings.enabled=false" in status.content[0].text
    assert [_error(r)["code"] for r in rest] == ["KNOWLEDGE_DISABLED"] * len(calls)


def test_a_planted_instruction_stays_data_and_triggers_nothing(wh: Warehouse, tmp_path: Path) -> None:
    w = copy_home(wh, tmp_path)
    gen_before, runs_before = generation.current(w.paths.generations), len(read_runs(w.paths))

    async def body(c: Client) -> Any:
        return (await c.call_tool("knowledge_search", {"query": "zebra quokka notes",
                                                       "mode": "find_skill"}),
                await c.call_tool("knowledge_get_skill", {"name": "poison-note"}))

    search, card = with_client(w, body)
    texts = json.dumps(search.structured_content, ensure_ascii=False) + json.dumps(card.structured_content,
                                                                                   ensure_ascii=False)
    assert "ignore previous instructions" in texts
    skills = [i for i in search.structured_content["lanes"]["skills"]["items"] if i["name"] == "poison-note"]
    assert skills and skills[0]["description"].startswith(UNTRUSTED_OPEN)
    body_text = card.structured_content["body"]
    assert body_text.startswith(UNTRUSTED_OPEN) and body_text.endswith(UNTRUSTED_CLOSE)
    assert body_text.count(UNTRUSTED_CLOSE) == 1  # the forged closing marker inside was defused
    for value in _strings(search.structured_content):
        if "ignore previous instructions" in value:
            assert value.startswith(UNTRUSTED_OPEN) and value.endswith(UNTRUSTED_CLOSE)
    after = generation.current(w.paths.generations)
    assert after is not None and gen_before is not None and after.path == gen_before.path
    assert len(read_runs(w.paths)) == runs_before and w.dispatch_list()["assignments"] == []
    assert w.search_text("restore MySQL root access")["found"]  # the index is intact


def _strings(v: Any) -> list[str]:
    if isinstance(v, str):
        return [v]
    if isinstance(v, dict):
        return [s for x in v.values() for s in _strings(x)]
    if isinstance(v, list):
        return [s for x in v for s in _strings(x)]
    return []


def test_the_server_process_runs_with_the_malloc_tunable(wh: Warehouse) -> None:
    async def body(c: Client) -> Any:
        await c.call_tool("knowledge_status", {})
        kids = psutil.Process().children(recursive=True)
        return [(k.cmdline(), k.environ().get("GLIBC_TUNABLES", "")) for k in kids if "mcp" in " ".join(k.cmdline())]

    servers = with_client(wh, body)
    assert servers, "no server process found"
    for cmdline, tunables in servers:
        assert "warehouse.mcp" in cmdline  # `akw mcp` re-exec'd itself …
        assert "glibc.malloc.tcache_count=1000" in tunables  # … with the tunable the search path needs


def test_forget_needs_confirmation(wh: Warehouse, tmp_path: Path) -> None:
    w = copy_home(wh, tmp_path)
    session = w.search_text("restore MySQL root access")["lanes"]["episodes"]["items"][0]["session_id"]

    async def body(c: Client) -> Any:  # one server: the dry run, the check in between, the forget
        dry = await c.call_tool("knowledge_forget", {"kind": "session", "id": session})
        kept = session in {i["session_id"] for i in w.search_text("restore MySQL root access")["lanes"]
                           ["episodes"]["items"]}
        return dry, kept, await c.call_tool("knowledge_forget", {"kind": "session", "id": session, "confirm": True})

    dry, kept, done = with_client(w, body)
    assert not dry.is_error
    assert kept  # a dry run removes nothing
    assert not done.is_error, json.dumps(done.structured_content)[-1500:]
    w2 = Warehouse(w.paths)  # a fresh handle: nothing cached from before the forget
    assert session not in {i["session_id"] for i in w2.search_text("restore MySQL root access")["lanes"]["episodes"]
                           ["items"]}


def test_feedback_is_recorded(wh: Warehouse, tmp_path: Path) -> None:
    w = copy_home(wh, tmp_path)
    resp = w.search_text("restore MySQL root access")
    item = resp["lanes"]["episodes"]["items"][0]["id"]

    async def body(c: Client) -> Any:
        return (await c.call_tool("knowledge_feedback", {"result_id": item, "useful": True,
                                                         "request_id": resp.get("request_id")}),
                await c.call_tool("knowledge_feedback", {"result_id": item}))

    r, bad = with_client(w, body)
    assert not r.is_error
    assert _error(bad)["code"] == "KNOWLEDGE_INVALID_REQUEST"
