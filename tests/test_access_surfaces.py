"""Issue 16 at the surfaces: the `access` settings, fail closed without a principal, identity never
from a request, `akw sql` refused under access control, and hostile input at every entry point
(API and CLI here; the MCP server in test_access_mcp.py) — a literal or KNOWLEDGE_INVALID_REQUEST, never
another principal's data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from access_homes import as_, build, leaks, markers, principals
from cli_run import akw_json
from homes import BuiltHome

from warehouse.api import Warehouse
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.settings import Settings

HOSTILE = ("' OR 1=1 --", "\"; DROP TABLE ak_document; --", "x' UNION SELECT text FROM ak_document --",
           "deploy* OR nginx NEAR/3 \"tls\" -mysql", "title:secret AND (a OR b)", "../../../../etc/passwd",
           "..\\..\\windows", "$1 $2 {query} {where_sql} ${x}", "ak_acl_document", "бэкап postgres 备份 バックアップ",
           "x" * 100_000, "a\x00b", "\ud800 lone surrogate", "%s %n %x", "<script>alert(1)</script>")


@pytest.fixture(scope="module")
def built(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Warehouse, set[str]]:
    src, wh = build(home24, tmp_path_factory.mktemp("surfaces"))
    return src, wh, markers(wh, "carol@example.com")


def _configure(wh: Warehouse, principal: str | None = None) -> None:
    """Access on in the home's own config file, as `akw config set` would write it."""
    s = Settings.load(wh.paths.config_file, env={}).with_value("access.enabled", "true") \
        .with_value("access.principals", json.dumps(principals(wh)))
    if principal:
        s = s.with_value("access.principal", principal)
    s.save(wh.paths.config_file)


def akw(wh: Warehouse, *args: str, stdin: bytes | None = None, **env: str) -> tuple[int, dict[str, Any]]:
    """The real `akw` app in-process (tests/cli_run.py), every `AKW_*` variable of the test's own removed."""
    return akw_json("--home", str(wh.paths.home), "--dsh-home", str(wh.paths.dsh_home),
                    "--autoclaw-root", str(wh.paths.autoclaw_root), *args, stdin=stdin, env=env, keep=())


def _code(doc: dict[str, Any]) -> str | None:
    errs = doc.get("errors") or []
    return errs[0]["code"] if errs and list(doc) == ["errors"] else None


# -- settings ---------------------------------------------------------------------------------
def test_settings_defaults_env_override_and_validation(tmp_path: Path) -> None:
    s = Settings()
    assert s.access.enabled is False and s.access.principal is None and s.access.principals == {}
    cfg = tmp_path / "config.yaml"
    s.with_value("access.principal", "alice@example.com").save(cfg)
    assert Settings.load(cfg, env={}).access.principal == "alice@example.com"
    assert Settings.load(cfg, env={"AKW_PRINCIPAL": "bob@example.com"}).access.principal == "bob@example.com"
    s2 = s.with_value("access.principals", '{"a@x.org": {"workspaces": ["shop-api"], "autoclaw_accounts": ["1"]}}')
    assert s2.access.principals["a@x.org"].workspaces == ["shop-api"]
    for key, value in (("access.principal", "not-an-email"), ("access.principals", '{"a@x.org": {"wrkspaces": []}}'),
                       ("access.principals", "[1, 2]"), ("access.enabled", "maybe")):
        with pytest.raises(KnowledgeError) as e:
            s.with_value(key, value)
        assert e.value.code == Code.CONFIG_INVALID.value


def test_config_set_principals_through_the_cli(built: tuple[Path, Warehouse, set[str]]) -> None:
    _, wh, _ = built
    rc, doc = akw(wh, "config", "set", "access.principals=" + json.dumps({"z@example.com": {"workspaces": ["tg-bot"]}}))
    assert rc == 0 and doc["agent-knowledge"]["access"]["principals"]["z@example.com"]["workspaces"] == ["tg-bot"]
    wh.paths.config_file.unlink()


# -- fail closed, identity from configuration only ----------------------------------------------
def test_no_principal_refuses_every_read(built: tuple[Path, Warehouse, set[str]]) -> None:
    _, wh, _ = built
    nobody = Warehouse(wh.paths, wh.settings.with_value("access.enabled", "true"))
    for call in (lambda: nobody.search_text("nginx config"), lambda: nobody.get("agent", "x"),
                 lambda: nobody.dispatch({"schema": "knowledge.dispatch/v1", "task": {"text": "deploy"},
                                          "target": "auto", "dry_run": True}),
                 lambda: nobody.dispatch_list(), lambda: nobody.dispatch_show("x")):
        with pytest.raises(KnowledgeError) as e:
            call()
        assert e.value.code == Code.NO_PRINCIPAL.value
    assert nobody.status()["state"], "status still answers (no indexed content in it)"
    _configure(wh)
    try:
        rc, doc = akw(wh, "search", "nginx config")
        assert rc != 0 and _code(doc) == Code.NO_PRINCIPAL.value
        rc, doc = akw(wh, "search", "nginx config", AKW_PRINCIPAL="carol@example.com")
        assert rc == 0 and doc["schema"] == "knowledge.search/v1"
    finally:
        wh.paths.config_file.unlink()


def test_an_unlisted_principal_sees_nothing(built: tuple[Path, Warehouse, set[str]]) -> None:
    _, wh, _ = built
    stranger = as_(wh, "mallory@example.com")
    resp = stranger.search_text("nginx config")
    assert all(not v["items"] for v in resp["lanes"].values() if v) and resp["actors"] == []
    assert resp["lanes"]["episodes"]["counts"]["indexed_docs"] == 0


@pytest.mark.parametrize("field", ["principal", "identity", "user"])
def test_requests_naming_an_identity_are_refused(built: tuple[Path, Warehouse, set[str]], field: str) -> None:
    _, wh, _ = built
    carol = as_(wh, "carol@example.com")
    base = {"schema": "knowledge.search/v1", "query": "nginx config"}
    for req in ({**base, field: "alice@example.com"}, {**base, "filters": {field: "alice@example.com"}}):
        with pytest.raises(KnowledgeError) as e:
            carol.search(req)
        assert e.value.code == Code.INVALID_REQUEST.value and field in e.value.message
    with pytest.raises(KnowledgeError) as e:
        carol.dispatch({"schema": "knowledge.dispatch/v1", "task": {"text": "deploy"}, "target": "auto",
                        field: "alice@example.com"})
    assert e.value.code == Code.INVALID_REQUEST.value
    with pytest.raises(KnowledgeError) as e:  # the same with access off: never a request's to give
        wh.search({**base, field: "alice@example.com"})
    assert e.value.code == Code.INVALID_REQUEST.value
    rc, doc = akw(wh, "search", "--request", "-", stdin=json.dumps({**base, field: "x@example.com"}).encode())
    assert rc != 0 and _code(doc) == Code.INVALID_REQUEST.value


def test_sql_is_refused_under_access_control(built: tuple[Path, Warehouse, set[str]]) -> None:
    _, wh, _ = built
    with pytest.raises(KnowledgeError) as e:
        as_(wh, "alice@example.com").sql("SELECT 1")
    assert e.value.code == Code.ACCESS_DENIED.value
    _configure(wh, "alice@example.com")
    try:
        rc, doc = akw(wh, "sql", "SELECT count(*) FROM ak_document")
        assert rc != 0 and _code(doc) == Code.ACCESS_DENIED.value
    finally:
        wh.paths.config_file.unlink()
    rc, doc = akw(wh, "sql", "SELECT count(*) FROM ak_acl_document")
    assert rc == 0 and doc["rows"][0][0] > 0, "access off: akw sql as before (the ACL tables too)"


# -- hostile input at every entry point ----------------------------------------------------------
def _ok_or_invalid(call: Any, marks: set[str]) -> str:
    try:
        doc = call()
    except KnowledgeError as e:
        assert e.code in (Code.INVALID_REQUEST.value, Code.NOT_FOUND.value), e.code
        return e.code
    assert leaks(doc, marks) == []
    return "ok"


def test_hostile_strings_through_the_api(built: tuple[Path, Warehouse, set[str]]) -> None:
    _, wh, marks = built
    carol = as_(wh, "carol@example.com")
    outcomes = {}
    for s in HOSTILE:
        outcomes[s[:20]] = _ok_or_invalid(lambda s=s: carol.search_text(s), marks)
        _ok_or_invalid(lambda s=s: carol.search({"schema": "knowledge.search/v1", "query": "nginx",
                                                 "filters": {"workspaces": [s], "session_ids": [s], "paths": [s],
                                                             "actor_ids": [s], "skills": [s]}}), marks)
        for kind in ("agent", "skill", "episode", "code"):
            _ok_or_invalid(lambda s=s, kind=kind: carol.get(kind, s), marks)
        _ok_or_invalid(lambda s=s: carol.dispatch({"schema": "knowledge.dispatch/v1", "task": {"text": s},
                                                   "target": "auto", "dry_run": True}), marks)
    assert outcomes["' OR 1=1 --"] == "ok", "SQL text in a query is a literal"
    assert outcomes["x" * 20] == outcomes["a\x00b"] == outcomes["\ud800 lone surrogate"] == Code.INVALID_REQUEST.value


def test_hostile_strings_through_the_cli(built: tuple[Path, Warehouse, set[str]]) -> None:
    _, wh, marks = built
    _configure(wh, "carol@example.com")
    try:
        for s in HOSTILE:
            if "\x00" in s or "\ud800" in s:  # not passable as an argument: as a request document
                rc, doc = akw(wh, "search", "--request", "-",
                              stdin=json.dumps({"schema": "knowledge.search/v1", "query": s}).encode())
                assert rc != 0 and _code(doc) == Code.INVALID_REQUEST.value
                continue
            for args in (("search", s), ("search", "nginx", "--workspace", s), ("get", "agent", s)):
                rc, doc = akw(wh, *args)
                assert leaks(doc, marks) == [], args
                assert rc == 0 or _code(doc) in (Code.INVALID_REQUEST.value, Code.NOT_FOUND.value), (args[:2], doc)
    finally:
        wh.paths.config_file.unlink()
