"""knowledge_search v1 on generated data with known truth: contract criteria KC-1…KC-13, UJ-1, UJ-4.

Degraded lanes are produced by really breaking sources (deleting them in a copy), never by mocks.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest
from homes import BuiltHome, build_home, q

from warehouse.api import Warehouse
from warehouse.core.errors import Code, KnowledgeError
from warehouse.home import generation
from warehouse.search.contract import invariant_violations, parse_request
from warehouse.search.service import RRF_K

SEED_SCHEMA = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "003_6a60be907bed1bea.txt"


def _build(src: Path, home: Path) -> Warehouse:
    return build_home(src, home)


@pytest.fixture(scope="module")
def gen(home24: BuiltHome) -> tuple[Path, dict[str, Any]]:
    return home24.src, home24.manifest


@pytest.fixture(scope="module")
def wh(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return home24.copy(tmp_path_factory.mktemp("home"))


def _no_trace(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k != "trace"}


# -- KC-1, KC-2, KC-6 ------------------------------------------------------------------------
def test_kc1_kc2_kc6_shape_and_separation(wh: Warehouse) -> None:
    d = q(wh, "restore MySQL access on 176.99.5.35")
    for key in ("schema", "routing", "lanes", "fusion", "limits"):
        assert key in d
    assert d["schema"] == "knowledge.search/v1" and d["fusion"]["strategy"] == "rrf" and d["fusion"]["k"] == RRF_K
    eps, code = d["lanes"]["episodes"]["items"], d["lanes"]["code"]["items"]
    assert eps and code, "both lanes answer when both sources are alive"
    for it in eps:
        assert it["session_id"] and isinstance(it["seq"], int) and "path" not in it
    for it in code:
        assert it["path"] and it["start_line"] >= 1 and "session_id" not in it
    for lane in ("episodes", "code", "skills"):
        assert d["lanes"][lane]["index_rev"] and d["lanes"][lane]["degraded"] is False
    assert len({d["lanes"][ln]["index_rev"] for ln in ("episodes", "code", "skills")}) == 3, "each lane has its own rev"


def test_response_validates_against_seed_schema(wh: Warehouse) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    if not SEED_SCHEMA.exists():
        pytest.skip(f"seed schema not found at {SEED_SCHEMA}")
    schema = json.loads(SEED_SCHEMA.read_text(encoding="utf-8"))
    for query in ("кто чинил доступ к MySQL на 176.99.5.35", "where is the nginx config for iya.ru", "deploy skill"):
        jsonschema.Draft202012Validator(schema).validate(q(wh, query, trace=True))


# -- KC-7, KC-8 ------------------------------------------------------------------------------
def test_kc7_evidence_refers_to_returned_items(wh: Warehouse) -> None:
    from warehouse.search.contract import SearchResponse

    for query in ("кто мигрировал сайт iya.ru", "who rotated the TLS certificate", "disk full on db-01.internal"):
        d = q(wh, query)
        assert d["actors"], query
        assert invariant_violations(SearchResponse.model_validate(d)) == []


def test_kc8_rrf_weights_and_stable_ties(wh: Warehouse) -> None:
    d = q(wh, "nginx reverse proxy config", mode="find_code")
    weights = d["fusion"]["weights"]
    assert weights["code"] == 1.0 and weights["episodes"] == pytest.approx(0.3)
    items = d["lanes"]["episodes"]["items"]
    scores = [it["score"] for it in items]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] == pytest.approx(weights["episodes"] / (RRF_K + 1), rel=1e-4)
    assert q(wh, "nginx reverse proxy config", mode="find_code") == d


# -- KC-9 budget -----------------------------------------------------------------------------
def test_kc9_budget_is_a_hard_cap(wh: Warehouse) -> None:
    from warehouse.search.budget import estimate_tokens
    from warehouse.search.contract import dumps

    full = q(wh, "migrate iya.ru site to the new server", limit=20, budget={"max_tokens": 20000})
    assert full["limits"]["truncated"] is False and full["limits"].get("dropped", []) == []
    small = q(wh, "migrate iya.ru site to the new server", limit=20, budget={"max_tokens": 800})
    assert estimate_tokens(dumps(small)) <= 800
    assert small["limits"]["truncated"] is True and small["limits"]["dropped"]
    kept = {it["id"] for ln in ("episodes", "code", "skills") for it in small["lanes"][ln]["items"]}
    for drop in small["limits"]["dropped"]:
        assert drop["count"] == len(drop["ids"]) or drop.get("ids_omitted")
        if drop["what"] == "item":
            assert not kept & set(drop["ids"])


def test_locator_provenance_has_no_snippets(wh: Warehouse) -> None:
    d = q(wh, "certbot renew api.shop-example.com", provenance="locator")
    items = [it for ln in ("episodes", "code") for it in d["lanes"][ln]["items"]]
    assert items and all(it.get("snippet") is None for it in items)


# -- KC-10 workspace filter --------------------------------------------------------------------
def test_kc10_workspace_filter_never_leaks(wh: Warehouse, gen: tuple[Path, dict[str, Any]]) -> None:
    _, manifest = gen
    ws = next(w for w in manifest["workspaces"] if w["name"] == "iya-site")
    others = [w for w in manifest["workspaces"] if w["id"] != ws["id"]]
    for filt in (ws["id"], ws["path"]):
        d = q(wh, "nginx mysql certificate deploy 176.99.5.35 disk", filters={"workspaces": [filt]}, limit=50)
        sessions = {t["session_id"] for t in manifest["tasks"] if t["workspace_id"] != ws["id"] and t.get("session_id")}
        for it in d["lanes"]["episodes"]["items"]:
            assert it["session_id"] not in sessions
            assert it["session"]["workspace"] in (ws["id"], ws["path"])
        for it in d["lanes"]["code"]["items"]:
            assert it["workspace"] == ws["id"]
        assert d["lanes"]["episodes"]["items"], "the workspace has its own matching work"
    assert others


# -- KC-11 canaries and logs ---------------------------------------------------------------------
def test_kc11_no_canary_in_responses_or_logs(wh: Warehouse, gen: tuple[Path, dict[str, Any]],
                                             caplog: pytest.LogCaptureFixture) -> None:
    _, manifest = gen
    caplog.set_level(logging.INFO, logger="akw.search")
    for c in manifest["canaries"]:
        value = c["value"].split("@")[0] if c["kind"] == "email" else c["value"]
        where = c["where"]
        query = f"password secret key token {where.get('field', '')} {where.get('table', '')}"
        text = json.dumps(q(wh, query, limit=50), ensure_ascii=False)
        assert value not in text
    secret_query = "find CANARY token sk-ant-api03-CANARYzzz"
    q(wh, secret_query)
    assert "CANARY" not in caplog.text and secret_query not in caplog.text
    assert "request_id=" in caplog.text


# -- KC-12, KC-13 ---------------------------------------------------------------------------------
def test_kc12_same_rev_same_bytes(wh: Warehouse) -> None:
    req = {"schema": "knowledge.search/v1", "query": "кто чинил доступ к MySQL на 176.99.5.35", "trace": True}
    a, b = wh.search(dict(req)), wh.search(dict(req))
    assert json.dumps(_no_trace(a), sort_keys=True) == json.dumps(_no_trace(b), sort_keys=True)
    assert b["trace"]["lanes"][0]["cache_hit"] is True
    fresh = Warehouse.open(wh.paths.dsh_home, wh.paths.autoclaw_root, wh.paths.home)  # a new process-like engine
    assert json.dumps(_no_trace(fresh.search(dict(req))), sort_keys=True) == json.dumps(_no_trace(a), sort_keys=True)
    assert "query" not in json.dumps(a["trace"])


def test_kc12_answer_does_not_depend_on_earlier_searches(wh: Warehouse) -> None:
    """A long-lived engine answers like a fresh one: prepared statements and session tables keep no state."""
    probe = {"schema": "knowledge.search/v1", "query": "who updated dns records for iya.ru", "mode": "find_agent",
             "include": ["episodes", "code", "skills"]}
    fresh = Warehouse.open(wh.paths.dsh_home, wh.paths.autoclaw_root, wh.paths.home)
    expected = json.dumps(_no_trace(fresh.search(dict(probe))), sort_keys=True)
    busy = Warehouse.open(wh.paths.dsh_home, wh.paths.autoclaw_root, wh.paths.home)
    for query in ("certbot renew", "какой навык есть для выкладки сайта iya.ru?", "who locked down sshd",
                  "pg_dump backup", "flaky test", "nginx proxy", "кто мигрировал iya.ru"):
        for mode in ("auto", "find_agent", "find_skill"):
            busy.search({"schema": "knowledge.search/v1", "query": query, "mode": mode,
                         "include": ["episodes", "code", "skills"]})
    assert json.dumps(_no_trace(busy.search(dict(probe))), sort_keys=True) == expected


def test_search_process_stays_lean(wh: Warehouse) -> None:
    """Searching binds no Python values (they make DuckDB import pandas: +85 MB RSS); filters included."""
    p = wh.paths
    code = (
        "import sys, json\nfrom warehouse.api import Warehouse\n"
        f"wh = Warehouse.open({str(p.dsh_home)!r}, {str(p.autoclaw_root)!r}, {str(p.home)!r})\n"
        "r = wh.search({'schema': 'knowledge.search/v1', 'query': 'кто чинил MySQL на 176.99.5.35',"
        " 'include': ['episodes', 'code', 'skills'], 'filters': {'since': '2020-01-01T00:00:00Z',"
        " 'workspaces': ['/nowhere', 'x\\'y'], 'paths': ['src/'], 'skills': ['deploy-iya-ru']}})\n"
        "wh.search({'schema': 'knowledge.search/v1', 'query': 'deploy-iya-ru', 'include': ['skills']})\n"
        "print(json.dumps(['pandas' in sys.modules, 'numpy' in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [False, False]


def test_session_cursor_is_renewed_before_its_tables_fill_with_deleted_rows(wh: Warehouse) -> None:
    from warehouse.search.service import SESSION_USES

    fresh = Warehouse.open(wh.paths.dsh_home, wh.paths.autoclaw_root, wh.paths.home)
    fresh.search({"schema": "knowledge.search/v1", "query": "warm up"})
    first = fresh.engine._local.sess
    for i in range(SESSION_USES):
        fresh.search({"schema": "knowledge.search/v1", "query": f"pg_dump backup {i}"})
    assert fresh.engine._local.sess is not first and fresh.engine._local.uses <= SESSION_USES
    assert fresh.search({"schema": "knowledge.search/v1", "query": "pg_dump backup"})["found"]


def _digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_kc13_search_writes_nothing(wh: Warehouse, gen: tuple[Path, dict[str, Any]]) -> None:
    src, _ = gen
    before = (_digest(src / "dsh"), _digest(src / "autoclaw"), _digest(wh.paths.generations))
    for query in ("who fixed MySQL", "деплой", "pg_dump backup", "ssh hardening"):
        q(wh, query, trace=True)
    assert (_digest(src / "dsh"), _digest(src / "autoclaw"), _digest(wh.paths.generations)) == before


# -- UJ-1, UJ-4, identifiers, empty ------------------------------------------------------------
def test_uj1_who_migrated_iya(wh: Warehouse, gen: tuple[Path, dict[str, Any]]) -> None:
    _, manifest = gen
    truth = {t["actor_id"] for t in manifest["tasks"] if t["template"] == "site_migration" and not t.get("deleted")}
    d = q(wh, "Кто уже занимался переносом сайта iya.ru на новый сервер?")
    assert d["routing"]["intent"] == "find_agent"
    top3 = [a["actor_id"] for a in d["actors"][:3]]
    assert truth & set(top3), (top3, truth)
    for a in d["actors"][:3]:
        assert 1 <= len(a["evidence"]) <= 3 and a["why"] and 0 <= a["confidence"] <= 1
        assert a["dispatch"]["mode"] in ("spawn_replica", "team_task", "external_handoff")
    ep = {it["id"]: it for it in d["lanes"]["episodes"]["items"]}
    first = d["actors"][0]["evidence"][0]["id"]
    assert ep[first]["time"] and ep[first]["session"]["outcome"]


def test_uj4_what_do_we_know(wh: Warehouse, gen: tuple[Path, dict[str, Any]]) -> None:
    _, manifest = gen
    truth = {t["session_id"] for t in manifest["tasks"] if t["template"] == "tls_rotation" and t.get("session_id")}
    d = q(wh, "What do we know about renewing the TLS certificate of api.shop-example.com?")
    got = [it["session_id"] for it in d["lanes"]["episodes"]["items"]]
    assert truth & set(got[:5])
    assert d["lanes"]["skills"]["items"][0]["name"] == "cert-rotation"


def test_exact_identifier_ip(wh: Warehouse) -> None:
    d = q(wh, "176.99.5.35")
    items = d["lanes"]["episodes"]["items"]
    assert items and "176.99.5.35" in (items[0].get("snippet") or "")
    assert any("=176.99.5.35" in w or "176.99.5.35" in w for w in items[0]["why"])


def test_russian_and_english_find_the_same_task(wh: Warehouse, gen: tuple[Path, dict[str, Any]]) -> None:
    _, manifest = gen
    truth = {t["session_id"] for t in manifest["tasks"] if t["template"] == "disk_full" and t.get("session_id")}
    for query in ("закончилось место на диске db-01.internal", "disk ran out of space on db-01.internal"):
        got = {it["session_id"] for it in q(wh, query)["lanes"]["episodes"]["items"][:5]}
        assert truth & got, query


def test_empty_result_is_honest(wh: Warehouse) -> None:
    d = q(wh, "zxqvbn квазиглоттализация")
    assert d["found"] is False and d["actors"] == []
    assert all(not d["lanes"][ln]["items"] for ln in ("episodes", "code", "skills"))
    assert {w["code"] for w in d["warnings"]} == {"KNOWLEDGE_NO_MATCH", "KNOWLEDGE_NO_GOOD_MATCH"}
    named = [w["message"] for w in d["warnings"] if w["code"] == "KNOWLEDGE_NO_GOOD_MATCH"]
    assert d["match"]["unknown_terms"] == ["zxqvbn"] and "'zxqvbn'" in named[0]  # what it names is not here


def test_query_is_a_literal(wh: Warehouse) -> None:
    for query in ("mysql OR 1=1; DROP TABLE ak_document; --", 'nginx* "iya.ru" (AND) NEAR/3', "' OR ''='"):
        d = q(wh, query)
        assert d["schema"] == "knowledge.search/v1"
    assert q(wh, "nginx")["found"] is True  # the index survived


@pytest.mark.parametrize(
    ("bad", "field"),
    [({"query": "   "}, "query"), ({"query": "a\x00b"}, "query"), ({"query": "x", "mode": "everything"}, "mode"),
     ({"query": "x", "include": ["episodes", "web"]}, "include"), ({"query": "x", "limit": 0}, "limit"),
     ({"query": "x", "budget": {"max_tokens": 100}}, "budget.max_tokens")],
)
def test_invalid_requests(wh: Warehouse, bad: dict[str, Any], field: str) -> None:
    from warehouse.core.errors import KnowledgeError

    with pytest.raises(KnowledgeError) as e:
        wh.search({"schema": "knowledge.search/v1", **bad})
    assert e.value.code == "KNOWLEDGE_INVALID_REQUEST" and e.value.details["field"].startswith(field)
    assert parse_request({"schema": "knowledge.search/v1", "query": "ok"}).limit == 10


def test_cli_search_json_and_request_file(wh: Warehouse, tmp_path: Path) -> None:
    base = [sys.executable, "-m", "warehouse", "search", "--home", str(wh.paths.home),
            "--dsh-home", str(wh.paths.dsh_home), "--autoclaw-root", str(wh.paths.autoclaw_root), "--json"]
    r = subprocess.run([*base, "rotate certificates"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["schema"] == "knowledge.search/v1"
    f = tmp_path / "req.json"
    f.write_text(json.dumps({"schema": "knowledge.search/v1", "query": "x", "mode": "nope"}))
    r = subprocess.run([*base, "--request", str(f)], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert json.loads(r.stdout)["errors"][0]["code"] == "KNOWLEDGE_INVALID_REQUEST"


# -- KC-3, KC-4, KC-5: really broken sources ----------------------------------------------------
@pytest.fixture(scope="module")
def broken_homes(gen: tuple[Path, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Warehouse]:
    src, _ = gen
    out: dict[str, Warehouse] = {}
    for name in ("no_code", "no_sessions", "nothing"):
        copy = tmp_path_factory.mktemp(name)
        shutil.copytree(src, copy, dirs_exist_ok=True, symlinks=True)
        if name in ("no_code", "nothing"):  # the code the registry points at is gone
            for w in json.loads((copy / "dsh/storages/workspace.json").read_text())["workspaces"]:
                shutil.rmtree(w["path"].replace(str(src), str(copy)), ignore_errors=True)
        if name in ("no_sessions", "nothing"):  # session logs and the AutoClaw accounts are gone
            shutil.rmtree(copy / "dsh" / "sessions")
            shutil.rmtree(copy / "autoclaw" / "accounts")
        if name == "nothing":  # and the DSH home's skills: no lane has a source (skills alone would answer)
            shutil.rmtree(copy / "dsh" / "skills")
        reg = copy / "dsh/storages/workspace.json"
        reg.write_text(reg.read_text().replace(str(src), str(copy)))
        out[name] = _build(copy, copy / "akw")
    return out


def test_kc3_code_lane_degraded(broken_homes: dict[str, Warehouse]) -> None:
    d = q(broken_homes["no_code"], "restore MySQL access on 176.99.5.35")
    code = d["lanes"]["code"]
    assert code["degraded"] is True and code["capability"] == "degraded" and code["items"] == []
    assert code["degradation_reason"]
    assert d["lanes"]["episodes"]["items"] and d["found"] is True
    assert any(w["lane"] == "code" and w["code"].startswith("KNOWLEDGE_") for w in d["warnings"])


def test_kc4_episodes_lane_degraded(broken_homes: dict[str, Warehouse]) -> None:
    d = q(broken_homes["no_sessions"], "nginx config for iya.ru")
    assert d["lanes"]["episodes"]["degraded"] is True and d["lanes"]["episodes"]["items"] == []
    assert d["lanes"]["code"]["items"] and d["actors"] == []


def test_kc5_no_source(broken_homes: dict[str, Warehouse]) -> None:
    d = q(broken_homes["nothing"], "nginx config for iya.ru")
    assert d["found"] is False
    assert [e["code"] for e in d["errors"]] == ["KNOWLEDGE_NO_SOURCE"]
    assert all(not d["lanes"][ln]["items"] for ln in ("episodes", "code", "skills")) and d["actors"] == []


def test_generation_of_another_version_asks_for_reindex(wh: Warehouse, gen: tuple[Path, dict[str, Any]],
                                                       tmp_path: Path) -> None:
    """A published index that lacks what this version reads is KNOWLEDGE_NOT_READY, not a DuckDB error."""
    home = tmp_path / "old-home"
    shutil.copytree(wh.paths.home, home)
    [gen_file] = [p for p in (home / "generations").glob("gen-*.duckdb")
                  if p.name in (home / "generations" / "CURRENT").read_text()]
    con = duckdb.connect(str(gen_file))
    con.execute("ALTER TABLE ak_actor DROP COLUMN top_skills")  # as built before the column existed
    con.close()
    old = Warehouse.open(gen[0] / "dsh", gen[0] / "autoclaw", home)
    for _ in range(2):  # and it stays an answer, not a broken session
        with pytest.raises(KnowledgeError) as err:
            q(old, "who migrated iya.ru")
        assert err.value.code == Code.NOT_READY.value and "akw reindex" in str(err.value)


def test_concurrent_searches_answer_as_sequential_ones(wh: Warehouse, gen: tuple[Path, dict[str, Any]]) -> None:
    """Threads share one engine (its generation, term memo, watchdog) but never each other's session tables."""
    from concurrent.futures import ThreadPoolExecutor

    queries = ["who migrated iya.ru", "кто восстанавливал доступ к MySQL на 176.99.5.35", "certbot renew",
               "disk full db-01", "ротация сертификатов", "pg_dump backup", "nginx proxy", "flaky checkout test",
               "ssh hardening sshd_config", "what do we know about DNS records"]
    reqs = [{"query": text, "mode": mode, "include": ["episodes", "code", "skills"]}
            for text in queries for mode in ("auto", "find_agent", "find_code")]
    sequential = [_no_trace(q(wh, **r)) for r in reqs]
    fresh = Warehouse.open(gen[0] / "dsh", gen[0] / "autoclaw", wh.paths.home)  # empty response cache
    with ThreadPoolExecutor(max_workers=4) as pool:
        concurrent = list(pool.map(lambda r: _no_trace(q(fresh, **r)), reqs))
    assert [json.dumps(d, sort_keys=True) for d in concurrent] == [json.dumps(d, sort_keys=True) for d in sequential]


def test_lane_queries_that_fail_degrade_their_lanes(home24: BuiltHome, tmp_path: Path) -> None:
    """A lane query that fails (here: out of DuckDB memory, really) is a degraded lane, not an exception."""
    wh2 = home24.copy(tmp_path / "home")
    query = "who restored MySQL access on 176.99.5.35"
    assert q(wh2, query, limit=9)["found"] is True  # warms the term memo: tokenizing needs no memory next time
    for mb in range(1, 64):  # the smallest limit DuckDB accepts: what it holds already (indexes, session tables)
        try:
            wh2.engine._con.execute(f"SET memory_limit = '{mb}MB'")
            break
        except duckdb.OutOfMemoryException:
            continue
    d = q(wh2, query, limit=8)
    assert d["found"] is False and [e["code"] for e in d["errors"]] == ["KNOWLEDGE_NO_SOURCE"]
    for lane in ("episodes", "code"):
        assert d["lanes"][lane]["degraded"] is True and d["lanes"][lane]["items"] == []
        assert "OutOfMemoryException" in d["lanes"][lane]["degradation_reason"]
    assert "176.99.5.35" not in json.dumps(d["warnings"]) + json.dumps(d["errors"])  # no query text in errors


@pytest.mark.parametrize("columns", [80, 120])
def test_search_text_wraps_to_the_terminal_and_cuts_no_identifier(wh: Warehouse, columns: int) -> None:
    """What a person reads: every line fits the width (80 when piped), and every actor and evidence id of the
    answer is printed whole — wrapped at a line end at most, never cut with an ellipsis."""
    from cli_run import akw_json, run

    loc = ("--dsh-home", str(wh.paths.dsh_home), "--autoclaw-root", str(wh.paths.autoclaw_root),
           "--home", str(wh.paths.home))
    query = "кто уже мигрировал iya.ru на новый сервер?"
    r = run(*loc, "search", query, env={"COLUMNS": str(columns)})
    assert r.code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert all(len(ln) <= columns for ln in lines), max(lines, key=len)
    _, doc = akw_json(*loc, "search", query)
    ids = [e["id"] for a in doc["actors"] for e in a["evidence"]]
    assert doc["actors"] and ids
    joined = "".join(ln.strip() for ln in lines)
    assert all(i in joined for i in ids)


def test_a_file_list_repeating_one_description_says_it_once() -> None:
    from warehouse.search.items import merged_descriptions

    text = "deploy/nginx/iya.ru.conf — Move iya.ru\ndocs/migration.md — Move iya.ru\nREADME.md — Notes"
    assert merged_descriptions(text) == "deploy/nginx/iya.ru.conf, docs/migration.md — Move iya.ru\nREADME.md — Notes"
    assert merged_descriptions("a.py (modified)\nb.py (added)") == "a.py (modified)\nb.py (added)"


def test_a_bare_announcement_is_an_event_but_never_a_document_or_a_snippet(wh: Warehouse) -> None:
    """Issue 28: "Loading the X skill." (and Claude Code's "Launching skill: X") said nothing as a snippet and,
    being short, was often an episode's best-matching event for a question naming the skill."""
    con, _ = generation.open_current(wh.paths.generations)
    try:
        said = con.execute("SELECT count(*) FROM stg_dsh_events WHERE akw_is_announcement(text)").fetchone()[0]
        indexed = con.execute("SELECT count(*) FROM ak_document WHERE akw_is_announcement(text)").fetchone()[0]
        skills = [r[0] for r in con.execute("SELECT DISTINCT skill_name FROM stg_dsh_events WHERE skill_name "
                                            "IS NOT NULL ORDER BY 1").fetchall()]
    finally:
        con.close()
    assert said > 0 and indexed == 0 and skills
    for name in skills:
        snippets = [i["snippet"] or "" for i in q(wh, f"{name} skill")["lanes"]["episodes"]["items"]]
        assert not [s for s in snippets if s.startswith(("Loading the", "Launching skill", "Загружаю навык"))], name
