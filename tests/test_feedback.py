"""Feedback (FR-9) on a real built home: stored without text, a bounded ranking boost, survives
rebuilds, removed by forget_items; the CLI answers one JSON document."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from homes import BuiltHome

from warehouse.api import Warehouse
from warehouse.core.errors import Code, KnowledgeError
from warehouse.home import feedback

QUERY = "backup database"


@pytest.fixture(scope="module")
def wh(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return home24.copy(tmp_path_factory.mktemp("home"))


def episode_ranking(wh: Warehouse) -> tuple[list[str], dict[str, float], dict[str, int]]:
    """(response order of the episodes lane, relevance and lane rank per episode from the fusion table)."""
    wh.engine._cache.clear()  # a cached answer runs no fusion: its rows would be another search's
    resp = wh.search_text(QUERY, limit=10)
    rows = wh.engine._local.sess.execute(
        "SELECT grp, relevance, lane_rank FROM _fused WHERE lane = 'episodes' AND grp LIKE 'episode:%'").fetchall()
    return ([i["id"] for i in resp["lanes"]["episodes"]["items"]], {g: r for g, r, _ in rows},
            {g: int(k) for g, _, k in rows})


def vote(wh: Warehouse, result_id: str, useful: bool, n: int) -> None:
    for i in range(n):
        wh.feedback(result_id, useful, request_id=f"req-test-{result_id[-8:]}-{useful}-{i}")


def clear(wh: Warehouse) -> None:
    feedback.log_file(wh.paths).unlink(missing_ok=True)
    wh.engine.feedback_changed()


def test_bad_ids_and_unknown_ids(wh: Warehouse) -> None:
    with pytest.raises(KnowledgeError) as e:
        wh.feedback("episode:harness:nope:1", True)
    assert e.value.code == Code.NOT_FOUND
    for bad in ("nonsense", "episode:", "ev:abc:1", "episode:has space"):
        with pytest.raises(KnowledgeError) as e:
            wh.feedback(bad, True)
        assert e.value.code == Code.INVALID_REQUEST
    _, rel, _ = episode_ranking(wh)
    some = next(iter(rel))
    with pytest.raises(KnowledgeError) as e:  # a request id is an id, never free text (a query would fit otherwise)
        wh.feedback(some, True, request_id="backup the database please")
    assert e.value.code == Code.INVALID_REQUEST and e.value.details["field"] == "request_id"
    with pytest.raises(KnowledgeError) as e:
        wh.feedback(some, True, chosen=some)  # chosen names an actor or a skill
    assert e.value.code == Code.INVALID_REQUEST
    assert not feedback.log_file(wh.paths).exists()  # nothing was recorded by refused calls


def test_record_holds_ids_verdict_and_time_only(wh: Warehouse) -> None:
    clear(wh)
    resp = wh.search_text(QUERY, limit=10)
    item = resp["lanes"]["episodes"]["items"][0]
    actor = item["actor"]["id"]
    doc = wh.feedback(item["id"], False, request_id="req-2026-10-23-001", chosen=actor)
    assert doc["recorded"] and doc["votes"] == {"useful": 0, "not_useful": 1} and doc["boost"] < 1
    raw = feedback.log_file(wh.paths).read_text(encoding="utf-8")
    rec = json.loads(raw)
    assert set(rec) == {"schema", "feedback_id", "result_id", "kind", "useful", "request_id", "chosen", "at"}
    assert QUERY not in raw and "backup" not in raw and (item.get("snippet") or "#") not in raw
    assert oct(os.stat(feedback.log_file(wh.paths)).st_mode & 0o777) == "0o600"
    assert oct(os.stat(feedback.folder(wh.paths)).st_mode & 0o777) == "0o700"
    clear(wh)


def test_boost_reorders_near_ties_but_never_lets_a_weak_match_pass(wh: Warehouse) -> None:
    clear(wh)
    _order, rel, rank = episode_ranking(wh)
    by_rank = sorted(rel, key=lambda g: rank[g])
    strong = by_rank[0]
    weak = next(g for g in by_rank if rel[g] < rel[strong] * 0.8)  # a clearly weaker match
    near = next((a, b) for a, b in itertools.pairwise(by_rank)
                if rel[b] >= rel[a] * 0.95 and a != strong and b != weak)
    # the bound: with a huge vote the factors approach 1 ± FEEDBACK_BOOST, a ratio of 1.1/0.9 at most
    assert rel[weak] * (1 + feedback.FEEDBACK_BOOST) < rel[strong] * (1 - feedback.FEEDBACK_BOOST)

    vote(wh, strong, False, 30)
    vote(wh, weak, True, 30)
    a, b = near
    vote(wh, a, False, 30)
    vote(wh, b, True, 30)
    # the cached answer of before is dropped when scores move; the answer says which feedback ranked it
    assert wh.search_text(QUERY, limit=10)["fusion"]["feedback_rev"].startswith("fb-")
    order2, rel2, rank2 = episode_ranking(wh)
    assert rank2[weak] > rank2[strong], "feedback alone let a weak match pass a strong one"
    assert rank2[b] < rank2[a], "feedback did not reorder a near tie"
    if a in order2 and b in order2:
        assert order2.index(b) < order2.index(a)
    for g in rel:  # bounded either way: (1 - boost) <= new/old <= (1 + boost), actor votes included
        assert rel[g] * (1 - feedback.FEEDBACK_BOOST) - 1e-9 <= rel2[g] <= rel[g] * (1 + feedback.FEEDBACK_BOOST) + 1e-9
    assert set(rel2) == set(rel)  # no item became an answer, none stopped being one: gates are untouched
    clear(wh)
    _, rel3, rank3 = episode_ranking(wh)
    assert rank3 == rank and rel3 == pytest.approx(rel)
    assert "feedback_rev" not in wh.search_text(QUERY, limit=10)["fusion"]  # no feedback: the answer of before


def test_feedback_survives_a_full_rebuild_and_forget_items_removes_it(wh: Warehouse) -> None:
    clear(wh)
    _, rel, rank = episode_ranking(wh)
    by_rank = sorted(rel, key=lambda g: rank[g])
    a, b = next((x, y) for x, y in itertools.pairwise(by_rank) if rel[y] >= rel[x] * 0.95)
    vote(wh, a, False, 10)
    vote(wh, b, True, 10)
    wh.reindex(mode="full")
    fresh = Warehouse.open(wh.paths.dsh_home, wh.paths.autoclaw_root, wh.paths.home)  # another process's view
    _, _, rank2 = episode_ranking(fresh)
    assert rank2[b] < rank2[a]
    assert feedback.forget_items(wh.paths, {a, b}) == 20
    assert feedback.forget_items(wh.paths, {a, b}) == 0
    assert a not in feedback.log_file(wh.paths).read_text() and b not in feedback.log_file(wh.paths).read_text()
    fresh.engine.feedback_changed()
    _, _, rank3 = episode_ranking(fresh)
    assert rank3[a] < rank3[b]
    clear(wh)


def test_forget_items_removes_records_naming_a_chosen_id(tmp_path: Path) -> None:
    from warehouse.core.paths import Paths

    p = Paths(tmp_path / "d", tmp_path / "a", tmp_path / "h")
    feedback.append(p, "skill:global:x", True, None, "actor:harness:root:s1")
    feedback.append(p, "skill:global:y", True, None, None)
    assert feedback.votes(feedback.read_all(p))["actor:harness:root:s1"] == (1, 0)  # chosen = a useful vote
    assert feedback.forget_items(p, {"actor:harness:root:s1"}) == 1
    assert [r["result_id"] for r in feedback.read_all(p)] == ["skill:global:y"]


def test_scores_are_bounded_and_one_verdict_per_request() -> None:
    recs: list[dict[str, Any]] = [{"result_id": "skill:r:x", "useful": True, "request_id": "r1"}] * 1000
    assert feedback.votes(recs) == {"skill:r:x": (1, 0)}  # repeats within one request count once
    many = [{"result_id": "skill:r:x", "useful": True, "request_id": f"r{i}"} for i in range(10_000)]
    assert 0.99 < feedback.scores(many)["skill:r:x"] < 1


def test_cli_feedback_json(wh: Warehouse) -> None:
    clear(wh)
    _, rel, _ = episode_ranking(wh)
    env = {**os.environ, "AKW_HOME": str(wh.paths.home), "DSH_HOME": str(wh.paths.dsh_home),
           "AUTOCLAW_ROOT": str(wh.paths.autoclaw_root)}
    akw = [sys.executable, "-m", "warehouse"]
    ok = subprocess.run([*akw, "feedback", next(iter(rel)), "--useful", "--request-id", "req-1", "--json"],
                        capture_output=True, text=True, env=env, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["votes"] == {"useful": 1, "not_useful": 0}
    for args, code in ((["episode:harness:nope:1", "--useful"], "KNOWLEDGE_NOT_FOUND"),
                       ([next(iter(rel))], "KNOWLEDGE_INVALID_REQUEST")):
        bad = subprocess.run([*akw, "feedback", *args, "--json"], capture_output=True, text=True, env=env,
                             timeout=60)
        assert bad.returncode != 0 and json.loads(bad.stdout)["errors"][0]["code"] == code
    clear(wh)


def test_semantic_fusion_applies_the_same_bounded_factor(home24_on: BuiltHome, tmp_path: Path) -> None:
    w = home24_on.copy(tmp_path / "home")
    _, rel, rank = episode_ranking(w)
    assert rel, "no episode answers"
    by_rank = sorted(rel, key=lambda g: rank[g])
    vote(w, by_rank[0], False, 20)
    if len(by_rank) > 1:
        vote(w, by_rank[-1], True, 20)
    _, rel2, _ = episode_ranking(w)
    assert set(rel2) == set(rel)  # the gates (lexical and similarity) are untouched
    for g in rel:
        assert rel[g] * (1 - feedback.FEEDBACK_BOOST) - 1e-9 <= rel2[g] <= rel[g] * (1 + feedback.FEEDBACK_BOOST) + 1e-9
    assert rel2[by_rank[0]] < rel[by_rank[0]]
