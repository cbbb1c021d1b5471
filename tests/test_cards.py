"""Cards (`akw get agent|skill|episode|code`, spec 001 FR-5 get_*, FR-6, AC-6) on real generated homes.

Every id a search response returns opens; unknown ids are KNOWLEDGE_NOT_FOUND; the skill card has
everything AC-6 asks and answers a task; a gone source is said, not hidden; budgets cut honestly;
the real skill collections render (theme-factory's PDF listed, never embedded).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from homes import BuiltHome

from warehouse.api import Warehouse
from warehouse.cards.contract import CARD_MODELS, card_json_schema
from warehouse.cards.lookup import published
from warehouse.core.errors import Code, KnowledgeError
from warehouse.evaluation import homes
from warehouse.search.snippets import UNTRUSTED_OPEN

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden" / "queries.yaml"
REAL = homes.realdata_dir()


@pytest.fixture(scope="module")
def src(home24: BuiltHome) -> tuple[Path, dict[str, Any]]:
    return home24.src, home24.manifest


@pytest.fixture(scope="module")
def wh(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return home24.copy(tmp_path_factory.mktemp("home"))


def _sql(wh: Warehouse, query: str) -> list[tuple[Any, ...]]:
    """Marts rows for test set-up, through the cards' own read-only opener (same DuckDB config as search)."""
    with published(wh.paths.generations) as (con, _rev):
        return con.execute(query).fetchall()


def _search(wh: Warehouse, q: dict[str, Any]) -> dict[str, Any]:
    req: dict[str, Any] = {"schema": "knowledge.search/v1", "query": q["text"], "mode": q.get("mode", "auto"),
                           "limit": 10}
    return wh.search(req)


def _ids(resp: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    """(kind, id, source) of every id in a response a caller may open."""
    out: list[tuple[str, str, str | None]] = []
    for a in resp["actors"]:
        out.append(("agent", a["actor_id"], None))
        out += [("episode", e["id"], None) for e in a["evidence"]]
    out += [("episode", it["id"], None) for it in resp["lanes"]["episodes"]["items"]]
    out += [("code", it["id"], None) for it in resp["lanes"]["code"]["items"]]
    for it in (resp["lanes"].get("skills") or {}).get("items", []):
        out.append(("skill", it["name"], it.get("id")))
        for u in it.get("used_by", []):
            out.append(("agent", u["actor_id"], None))
            if u.get("episode_id"):
                out.append(("episode", u["episode_id"], None))
    return out


# -- every id opens ----------------------------------------------------------------------------
def test_every_id_of_fifty_golden_responses_opens(wh: Warehouse) -> None:
    queries = [q for q in yaml.safe_load(GOLDEN.read_text(encoding="utf-8"))["queries"] if not q.get("filters")][:50]
    assert len(queries) == 50
    seen: set[tuple[str, str, str | None]] = set()
    for q in queries:
        for kind, ident, source in _ids(_search(wh, q)):
            if (kind, ident, source) in seen:
                continue
            seen.add((kind, ident, source))
            card = wh.get(kind, ident, source=source)
            assert card["schema"].startswith("knowledge.card."), (kind, ident)
            if kind == "skill":
                assert card["name"] == ident and (source is None or card["skill_id"] == source)
            if kind == "agent":
                assert card["actor_id"] == ident
            if kind == "episode" and card["schema"] == "knowledge.card.episode/v1":
                assert card["opened_as"] == ident and card["source_read"]["read_from"] == "source"
    kinds = {k for k, _i, _s in seen}
    assert kinds == {"agent", "episode", "code", "skill"} and len(seen) > 100


@pytest.mark.parametrize("kind,ident", [("agent", "actor:harness:root:no-such-session"),
                                        ("episode", "ep:no-such-session:1"), ("skill", "no-such-skill"),
                                        ("code", "chunk:nowhere:x.py:1")])
def test_an_unknown_id_is_not_found_never_an_empty_card(wh: Warehouse, kind: str, ident: str) -> None:
    with pytest.raises(KnowledgeError) as e:
        wh.get(kind, ident)
    assert e.value.code == Code.NOT_FOUND and e.value.details["kind"] == kind


def test_a_skill_source_that_holds_no_such_skill_names_the_ones_that_do(wh: Warehouse) -> None:
    with pytest.raises(KnowledgeError) as e:
        wh.get_skill("deploy-iya-ru", source="dsh_home")
    assert e.value.code == Code.NOT_FOUND and "autoclaw:" in e.value.message and "workspace_dsh:" in e.value.message


# -- AC-6: the skill card ----------------------------------------------------------------------
def test_ac6_skill_card_has_body_when_to_use_resources_version_usage_and_task_fit(wh: Warehouse) -> None:
    c = wh.get_skill("deploy-iya-ru", task="перенести сайт iya.ru на новый сервер")
    assert c["body"].startswith(UNTRUSTED_OPEN) and "rsync" in c["body"] and c["body_chars"] > 500
    assert "iya.ru" in c["when_to_use"] and c["front_matter"]["whenToUse"]
    assert c["disable_model_invocation"] is False and c["user_invocable"] is True
    assert {r["path"] for r in c["resources"]} >= {"scripts/deploy.sh", "assets/topology.png"}
    assert all(r["sha256"] and r["size"] for r in c["resources"])
    assert c["version"]["version"] and c["version"]["content_hash"].startswith("sha256:")
    assert c["usage"]["uses"] >= 1 and c["usage"]["recent"][0]["evidence"]["id"]
    ev = c["usage"]["recent"][0]["evidence"]["id"]
    assert wh.get_episode(ev)["episode_id"] == c["usage"]["recent"][0]["episode_id"], "usage evidence opens"
    ta = c["task_answer"]
    assert 3 <= len(ta["applicability"]) <= 5 and ta["limits"] and ta["typical_errors"] and ta["checklist"]
    for section in ("applicability", "limits", "typical_errors", "checklist"):
        assert all(p["evidence"] for p in ta[section]), section
    # the rsync failure of the episode that used it is a typical error, with the failed result as evidence
    assert any("cannot both be remote" in p["text"] for p in ta["typical_errors"])
    assert any(e["kind"] == "body_line" for p in ta["checklist"] for e in p["evidence"])


def test_same_name_in_two_roots_is_a_duplicate_or_conflict_and_source_picks_the_copy(wh: Warehouse) -> None:
    first = wh.get_skill("deploy-iya-ru")
    assert [n["code"] for n in first["notices"]] == ["ambiguous_name"]
    other = next(r for r in first["related"] if r["name"] == "deploy-iya-ru")
    assert other["relation"] in ("duplicate", "conflict")
    second = wh.get_skill("deploy-iya-ru", source=other["skill_id"])
    assert second["skill_id"] == other["skill_id"] != first["skill_id"] and not second["notices"]
    assert wh.get_skill(other["skill_id"])["skill_id"] == other["skill_id"], "a skill id opens by itself"
    conflicts = [(r["name"], r["source"]) for name in ("mysql-access-restore", "cert-rotation")
                 for r in wh.get_skill(name)["related"] if r["relation"] == "conflict"]
    assert conflicts, "copies with different content are flagged as conflicts"


def test_skill_card_flags_missing_references_and_removed_skills(wh: Warehouse) -> None:
    tg = wh.get_skill("telegram-handler")
    assert tg["missing_references"] == ["src/handlers/status.ts"]
    assert any("src/handlers/status.ts" in p["text"] for p in wh.get_skill(
        "telegram-handler", task="add a status handler")["task_answer"]["limits"])
    gone = wh.get_skill("legacy-ftp-deploy")
    assert gone["status"] == "removed" and "removed" in [n["code"] for n in gone["notices"]]
    assert any(h["event"] == "removed" for h in gone["version"]["history"])


def test_cards_are_deterministic(wh: Warehouse) -> None:
    for kind, ident in (("skill", "deploy-iya-ru"), ("agent", "actor:harness:root:session-832b60ba2da4b255")):
        assert wh.get(kind, ident, task="deploy iya.ru") == wh.get(kind, ident, task="deploy iya.ru")


# -- agent card --------------------------------------------------------------------------------
def test_agent_card_of_an_autoclaw_agent(wh: Warehouse) -> None:
    actor = _sql(wh, "SELECT actor_id FROM ak_actor WHERE kind = 'autoclaw_agent' AND episodes > 0 "
                   "ORDER BY episodes DESC, actor_id LIMIT 1")[0][0]
    c = wh.get_agent(actor, task="restore mysql access")
    assert c["kind"] == "autoclaw_agent" and c["display_name"] and c["instructions"].startswith(UNTRUSTED_OPEN)
    assert c["episodes_total"] == c["stats"]["episodes"] == len(c["episodes"]) > 0
    assert c["models"] and c["first_activity"] <= c["last_activity"]
    assert c["dispatch"] == {"mode": "external_handoff", "available": True,
                             "reason": "dispatch.allow_external_handoff is true in the settings"}
    assert all(e["outcome"] and e["evidence_ref"] and e["evidence"] for e in c["episodes"])
    assert c["task_fit"] and all(p["evidence"] for p in c["task_fit"])


def test_dispatch_availability_is_what_the_settings_say(src: tuple[Path, dict[str, Any]], wh: Warehouse) -> None:
    actor = _sql(wh, "SELECT actor_id FROM ak_actor WHERE kind = 'root_session' ORDER BY actor_id LIMIT 1")[0][0]
    other = Warehouse(wh.paths, wh.settings.with_value("dispatch.allow_spawn_replica", "false"))
    assert wh.get_agent(actor)["dispatch"]["available"] is True
    assert other.get_agent(actor)["dispatch"] == {
        "mode": "spawn_replica", "available": False, "reason": "dispatch.allow_spawn_replica is false in the settings"}


def test_agent_card_lists_skills_with_counts(wh: Warehouse) -> None:
    row = _sql(wh, "SELECT actor_id, skill_name, count(*) FROM ak_skill_use WHERE actor_id IS NOT NULL "
                 "GROUP BY ALL ORDER BY 3 DESC, 1, 2 LIMIT 1")[0]
    c = wh.get_agent(row[0])
    assert {"name": row[1], "uses": row[2]}.items() <= next(s for s in c["skills"] if s["name"] == row[1]).items()


# -- episode card ------------------------------------------------------------------------------
def test_episode_card_has_goal_actions_result_errors_and_refs(wh: Warehouse) -> None:
    c = wh.get_episode("ep:session-832b60ba2da4b255:66")
    assert c["focus"]["seq"] == 66 and c["episode_id"] == "episode:harness:session-832b60ba2da4b255:1"
    assert "iya.ru" in c["goal"] and c["constraints"]["plan"] and c["actions"]["commands"]
    assert c["result"]["final_answer"] and c["result"]["outcome"] == "partial"
    assert any(e["seq"] == 66 for e in c["errors"]) and c["retries"][0]["failed_seq"] == 66
    assert c["skills"][0]["name"] == "deploy-iya-ru" and c["artifacts"]
    refs = c["source_refs"]
    assert refs["evidence_ref"] == f"{refs['session_id']}#seq={refs['seq_first']}-{refs['seq_last']}"
    assert c["source_read"] == {"read_from": "source", "available": True, "code": None}
    assert any(ev["seq"] == 66 and ev["is_error"] for ev in c["transcript"])


def test_autoclaw_episode_reads_its_entries_from_the_database(wh: Warehouse) -> None:
    eid = _sql(wh, "SELECT episode_id FROM ak_episode WHERE source = 'autoclaw' ORDER BY episode_id LIMIT 1")[0][0]
    c = wh.get_episode(eid, max_chars=200_000)
    assert c["source_read"]["read_from"] == "source" and c["source_refs"]["entry_ids"]
    assert len(c["transcript"]) == c["transcript_total"] == len(c["source_refs"]["entry_ids"])


def test_secrets_read_on_demand_are_redacted(src: tuple[Path, dict[str, Any]], wh: Warehouse) -> None:
    text = ""
    for eid in (r[0] for r in _sql(wh, "SELECT episode_id FROM ak_episode ORDER BY episode_id")):
        text += json.dumps(wh.get_episode(eid, max_chars=200_000), ensure_ascii=False)
    assert "[REDACTED:" in text
    for c in src[1]["canaries"]:
        assert (c["value"].split("@")[0] if c["kind"] == "email" else c["value"]) not in text


def test_an_episode_whose_source_is_gone_says_so_and_shows_the_index(src: tuple[Path, dict[str, Any]],
                                                                      tmp_path: Path) -> None:
    copy = tmp_path / "src"
    shutil.copytree(src[0], copy, symlinks=True)
    w = Warehouse.open(copy / "dsh", copy / "autoclaw", tmp_path / "home")
    w.reindex()
    for log in (copy / "dsh" / "sessions").glob("*/session-832b60ba2da4b255/*"):
        log.unlink()
    shutil.rmtree(copy / "autoclaw" / "accounts")
    for eid in ("episode:harness:session-832b60ba2da4b255:1",
                _sql(w, "SELECT min(episode_id) FROM ak_episode WHERE source = 'autoclaw'")[0][0]):
        c = w.get_episode(eid)
        assert c["source_read"] == {"read_from": "index", "available": False, "code": "KNOWLEDGE_SOURCE_UNAVAILABLE"}
        assert [n["code"] for n in c["notices"]] == ["KNOWLEDGE_SOURCE_UNAVAILABLE"]
        assert c["goal"] and c["transcript"] and c["result"]["outcome"]


# -- budget ------------------------------------------------------------------------------------
def test_long_texts_are_cut_with_a_marker_and_a_way_to_the_rest(wh: Warehouse) -> None:
    small = wh.get_skill("deploy-iya-ru", max_chars=300)
    cut = next(c for c in small["truncated"] if c["field"] == "body")
    assert cut["shown_chars"] == 300 and cut["total_chars"] == small["body_chars"] > 300
    assert f"of {small['body_chars']} characters" in small["body"] and "--max-chars" in cut["rest"]
    full = wh.get_skill("deploy-iya-ru", max_chars=cut["total_chars"])
    assert not [c for c in full["truncated"] if c["field"] == "body"] and "cut at" not in full["body"]
    ep = wh.get_episode("episode:harness:session-832b60ba2da4b255:1", max_chars=500)
    assert len(ep["transcript"]) < ep["transcript_total"] and any(c["field"] == "transcript" for c in ep["truncated"])
    with pytest.raises(KnowledgeError) as e:
        wh.get_skill("deploy-iya-ru", max_chars=10)
    assert e.value.code == Code.INVALID_REQUEST and e.value.details["field"] == "max_chars"


def test_card_schemas_are_published_from_the_models() -> None:
    for kind in CARD_MODELS:
        schema = card_json_schema(kind)
        assert schema["$schema"].endswith("2020-12/schema") and "schema" in schema["properties"]


# -- the real skills catalogue -----------------------------------------------------------------
@pytest.mark.skipif(REAL is None, reason="shared/realdata/skills is absent")
def test_the_real_skills_catalogue_renders_as_cards(src: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    assert REAL is not None
    w = homes.open_home(lambda p, s: Warehouse(p, s), src[0], "akw-real", homes.real_skill_dirs(REAL))
    assert isinstance(w, Warehouse)
    w.reindex()
    names = sorted(homes.real_skill_names(REAL))
    assert len(names) >= 20
    for name in names:
        c = w.get_skill(name, source="extra", task="style a slide deck with a consistent theme")
        assert c["body"] and c["source"]["root_kind"] == "extra" and c["version"]["content_hash"]
        ta = c["task_answer"]
        assert 3 <= len(ta["applicability"]) <= 5 and ta["limits"] and ta["typical_errors"] and ta["checklist"]
        if not c["when_to_use"]:
            assert any(e["note"] == "absent" for p in ta["applicability"] for e in p["evidence"])
        if c["usage"]["uses"] == 0:
            assert "no recorded use" in ta["typical_errors"][0]["text"]
    theme = w.get_skill("theme-factory", source="extra")
    pdf = next(r for r in theme["resources"] if r["path"] == "theme-showcase.pdf")
    assert pdf["kind"] == "binary" and pdf["size"] > 100_000 and pdf["mentioned"] and len(pdf["sha256"]) == 64
    blob = json.dumps(theme, ensure_ascii=False)
    assert "%PDF" not in blob and len(blob) < 60_000, "the PDF is listed, never embedded"


# -- CLI ---------------------------------------------------------------------------------------
def _akw(wh: Warehouse, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DSH_HOME": str(wh.paths.dsh_home), "AUTOCLAW_ROOT": str(wh.paths.autoclaw_root),
           "AKW_HOME": str(wh.paths.home), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "warehouse", *args], capture_output=True, text=True, env=env,
                          timeout=120, check=False)


def test_akw_get_mirrors_the_api(wh: Warehouse) -> None:
    r = _akw(wh, "get", "skill", "deploy-iya-ru", "--task", "deploy iya.ru", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == wh.get_skill("deploy-iya-ru", task="deploy iya.ru")
    missing = _akw(wh, "get", "episode", "ep:nope:1", "--json")
    assert missing.returncode == 2 and json.loads(missing.stdout)["errors"][0]["code"] == "KNOWLEDGE_NOT_FOUND"
    human = _akw(wh, "get", "episode", "ep:session-832b60ba2da4b255:66")
    assert human.returncode == 0 and "episode:harness:session-832b60ba2da4b255:1" in human.stdout
    assert "{'" not in human.stdout and "untrusted-data" not in human.stdout and "Traceback" not in human.stderr


# -- what a person reads: `akw get … ` without --json at 80 columns ------------------------------------------
def _text(wh: Warehouse, *args: str) -> str:
    from cli_run import run

    r = run("--dsh-home", str(wh.paths.dsh_home), "--autoclaw-root", str(wh.paths.autoclaw_root),
            "--home", str(wh.paths.home), *args, env={"COLUMNS": "80"})
    assert r.code == 0, r.stderr
    return r.stdout


def test_a_code_card_prints_its_code_with_line_breaks_and_numbers(wh: Warehouse) -> None:
    cid, start = _sql(wh, "SELECT chunk_id, start_line FROM stg_code_chunks "
                          "WHERE end_line - start_line >= 4 ORDER BY chunk_id LIMIT 1")[0]
    shown = _text(wh, "get", "code", cid)
    card = wh.get_code(cid)
    numbered = [ln for ln in shown.splitlines() if " │ " in ln]
    assert [int(ln.split(" │ ")[0]) for ln in numbered] == list(range(start, start + len(numbered)))
    assert len(numbered) == len(card["text"].replace(UNTRUSTED_OPEN, "").splitlines()) >= 4
    assert cid in shown and all(len(ln) <= 80 or " │ " in ln for ln in shown.splitlines())


def test_a_skill_card_answers_the_task_before_its_front_matter(wh: Warehouse) -> None:
    name = _sql(wh, "SELECT name FROM ak_skill WHERE status = 'live' ORDER BY name LIMIT 1")[0][0]
    shown = _text(wh, "get", "skill", name, "--task", "deploy the site to the new server")
    assert shown.index("applicability") < shown.index("front_matter")
    assert all(len(ln) <= 80 for ln in shown.splitlines() if " │ " not in ln)
