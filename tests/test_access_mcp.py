"""Issue 16 through the MCP server: a real `akw mcp` process with access control on in its home's
config and the principal from its environment (never from a tool argument). Every tool output —
search (compact and full), cards (code cards too), dispatch — is scanned for what the principal must
not see; a code chunk of a workspace the principal may not see is KNOWLEDGE_NOT_FOUND, as any card;
an argument naming an identity is refused; without a principal every read is refused; hostile
strings are literals or KNOWLEDGE_INVALID_REQUEST."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from access_homes import QUERIES, build, leaks, markers, principals
from homes import BuiltHome
from mcp import Client, StdioServerParameters
from mcp_helpers import AKW

from warehouse.api import Warehouse
from warehouse.core.errors import Code
from warehouse.core.proc import tuned_env
from warehouse.core.settings import Settings

WHO = "alice@example.com"
HOSTILE = ("' OR 1=1 --", "deploy* OR nginx NEAR/3 \"tls\" -mysql", "../../../../etc/passwd",
           "x' UNION SELECT text FROM ak_document --", "бэкап postgres 备份", "x" * 100_000, "a\x00b")


@pytest.fixture(scope="module")
def home(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> tuple[Warehouse, set[str]]:
    _, wh = build(home24, tmp_path_factory.mktemp("access-mcp"))
    marks = markers(wh, WHO)
    Settings.load(wh.paths.config_file, env={}).with_value("access.enabled", "true") \
        .with_value("access.principals", json.dumps(principals(wh))).save(wh.paths.config_file)
    return wh, marks


@pytest.fixture(scope="module")
def hidden_chunk(home: tuple[Warehouse, set[str]]) -> str:
    """A code chunk of infra-ops, a workspace alice may not see (read before any search: see access_homes)."""
    wh, _ = home
    rows = wh.sql("SELECT doc_key FROM ak_document WHERE doc_key LIKE 'chunk:infra-ops-%' ORDER BY doc_key LIMIT 1")
    return str(rows["rows"][0][0])


def _run(wh: Warehouse, principal: str | None, body: Any) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AKW_")}
    env |= {"DSH_HOME": str(wh.paths.dsh_home), "AUTOCLAW_ROOT": str(wh.paths.autoclaw_root),
            "AKW_HOME": str(wh.paths.home)}
    if principal:
        env["AKW_PRINCIPAL"] = principal
    env = tuned_env(env)  # the malloc tunable preset: `akw mcp` serves without re-executing itself (mcp_helpers)
    out: list[Any] = []

    async def main() -> None:
        async with Client(StdioServerParameters(command=AKW, args=["mcp"], env=env), read_timeout_seconds=120) as c:
            out.append(await body(c))

    anyio.run(main)
    return out[0]


def _doc(result: Any) -> dict[str, Any]:
    return result.structured_content or json.loads(result.content[1].text)


def _code(result: Any) -> str | None:
    return result.structured_content["errors"][0]["code"] if result.is_error else None


def test_mcp_outputs_carry_nothing_of_another_principals_work(home: tuple[Warehouse, set[str]],
                                                              hidden_chunk: str) -> None:
    wh, marks = home
    assert len(marks) > 10

    async def body(c: Client) -> list[tuple[str, Any]]:
        seen: list[tuple[str, Any]] = []
        for query in QUERIES:
            r = await c.call_tool("knowledge_search", {"query": query, "limit": 10})
            seen.append((query, r))
            seen.append((f"full {query}", await c.call_tool("knowledge_search", {"query": query, "limit": 10,
                                                                                  "detail": "full"})))
            doc = _doc(r)
            for actor in [a["actor_id"] for a in doc.get("actors", [])][:2]:
                seen.append((f"agent {actor}", await c.call_tool("knowledge_get_agent", {"id": actor})))
            for item in (doc.get("lanes", {}).get("episodes") or {}).get("items", [])[:2]:
                seen.append((f"episode {item['id']}", await c.call_tool("knowledge_get_episode", {"id": item["id"]})))
            for item in (doc.get("lanes", {}).get("skills") or {}).get("items", [])[:2]:
                seen.append((f"skill {item['name']}", await c.call_tool("knowledge_get_skill", {"name": item["name"]})))
            for item in (doc.get("lanes", {}).get("code") or {}).get("items", [])[:2]:
                seen.append((f"code {item['id']}", await c.call_tool("knowledge_get_code", {"id": item["id"]})))
        seen.append(("hidden code", await c.call_tool("knowledge_get_code", {"id": hidden_chunk})))
        seen.append(("no code", await c.call_tool("knowledge_get_code", {"id": hidden_chunk + "-none"})))
        task = {"title": "Back up postgres", "text": "nightly postgres backup with a restore check"}
        seen.append(("dispatch", await c.call_tool("knowledge_dispatch", {"task": task, "target": "auto",
                                                                          "dry_run": True})))
        return seen

    seen = _run(wh, WHO, body)
    answered = [what for what, r in seen if not r.is_error]
    assert len(answered) > len(QUERIES), "searches and some cards answer"
    assert any(what.startswith("code ") for what in answered), "code cards of the principal's own work open"
    found = [what for what, r in seen if what in QUERIES and _doc(r).get("found")]
    assert found, "the principal's own work is found through MCP"
    hidden, absent = (json.dumps(_doc(dict(seen)[k])).replace(i, "<id>") for k, i in (
        ("hidden code", hidden_chunk), ("no code", hidden_chunk + "-none")))
    assert hidden == absent and Code.NOT_FOUND.value in hidden  # a chunk one may not see is one that is not there
    for what, r in seen:
        if r.is_error:
            assert _code(r) == Code.NOT_FOUND.value, (what, _code(r))
        own = hidden_chunk if what in ("hidden code", "no code") else "\0"  # the id it sent comes back in the error
        assert leaks(json.loads(json.dumps(_doc(r)).replace(own, "")), marks) == [], what
        assert leaks([c.text.replace(own, "") for c in r.content], marks) == [], what


def test_an_identity_argument_is_refused_and_no_principal_refuses_every_read(home: tuple[Warehouse, set[str]]) -> None:
    wh, _ = home

    async def claims(c: Client) -> list[Any]:
        return [await c.call_tool("knowledge_search", {"query": "nginx config", field: "bob@example.com"})
                for field in ("principal", "identity", "user")]

    for r in _run(wh, WHO, claims):
        assert _code(r) == Code.INVALID_REQUEST.value

    async def reads(c: Client) -> list[Any]:
        return [await c.call_tool("knowledge_search", {"query": "nginx config"}),
                await c.call_tool("knowledge_get_skill", {"name": "deploy-iya-ru"}),
                await c.call_tool("knowledge_dispatch", {"task": {"text": "deploy"}, "target": "auto",
                                                         "dry_run": True})]

    for r in _run(wh, None, reads):
        assert _code(r) == Code.NO_PRINCIPAL.value


def test_hostile_strings_through_mcp_are_literals_or_refused(home: tuple[Warehouse, set[str]]) -> None:
    wh, _ = home

    async def body(c: Client) -> list[tuple[str, Any]]:
        out = []
        for s in HOSTILE:
            out.append((s[:20], await c.call_tool("knowledge_search", {"query": s})))
            out.append((s[:20], await c.call_tool("knowledge_search", {"query": "nginx",
                                                                       "filters": {"workspaces": [s], "paths": [s]}})))
            out.append((s[:20], await c.call_tool("knowledge_get_skill", {"name": s})))
        return out

    results = _run(wh, "carol@example.com", body)
    carol = markers(wh, "carol@example.com")
    for what, r in results:
        assert _code(r) in (None, Code.INVALID_REQUEST.value, Code.NOT_FOUND.value), (what, _code(r))
        assert leaks(_doc(r), carol) == [], what
    by = {what: _code(r) for what, r in results[::3]}
    assert by["' OR 1=1 --"] is None, "SQL text in a query is a literal"
    assert by["x" * 20] == by["a\x00b"] == Code.INVALID_REQUEST.value


def test_the_home_config_says_access_is_on(home: tuple[Warehouse, set[str]]) -> None:
    wh, _ = home
    assert Settings.load(Path(wh.paths.config_file), env={}).access.enabled is True
