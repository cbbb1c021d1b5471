"""Issue 16 curation pass and trust prior: reindex recomputes `ak_trust` per entity from authority,
outcome and the access counter (decaying toward neutral), beside the generation and outside `index_rev`;
fusion multiplies relevance by the bounded prior, which never lets a weak match pass a strong one."""

from __future__ import annotations

import dataclasses
import itertools
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from access_homes import QUERIES, build
from homes import BuiltHome

from warehouse.api import Warehouse
from warehouse.home import access_counter as ac
from warehouse.home import trust
from warehouse.lifecycle.hooks import FORGET_HOOKS
from warehouse.pipeline import curation
from warehouse.search.fusion import TRUST_BETA, trust_bound
from warehouse.search.service import SearchEngine

LATER = "2027-01-30T00:00:00Z"  # 60 days after conftest's AKW_NOW: two half-lives of demand


@pytest.fixture(scope="module")
def wh(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return build(home24, tmp_path_factory.mktemp("trust"))[1]


def _at(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(UTC)


def test_every_reindex_curates_one_row_per_entity(wh: Warehouse) -> None:
    rows = trust.read(wh.paths)
    kinds = {r[1] for r in rows.values()}
    assert kinds == {"episode", "actor", "skill", "memory"}, "no chunk counted yet: none is stored (all 0.5)"
    assert sum(r[1] == "episode" for r in rows.values()) == wh.sql("SELECT count(*) FROM ak_episode")["rows"][0][0]
    # the SQL of the pass is access_counter.trust_score, row by row
    for e, _kind, score, authority, outcome, hits, last, computed_at in rows.values():
        assert score == pytest.approx(ac.trust_score(authority, outcome, hits, last, _at(computed_at)), abs=1e-12), e
    assert {r[2] for r in rows.values() if r[1] == "skill"} == {0.58}, "a SKILL.md skill: authority 0.7"
    assert oct(trust.store_file(wh.paths).stat().st_mode & 0o777) == "0o600"
    # the counter never enters a generation: the rev is that of the sources, whatever ak_trust holds
    assert trust.read_meta(wh.paths)["index_rev"] == wh.status()["index_rev"]
    noop = wh.reindex()
    assert noop["outcome"] == "noop" and noop["trust"] == {"outcome": "fresh"}, "nothing moved: no pass"


def test_decay_moves_a_stale_item_toward_neutral(wh: Warehouse, monkeypatch: pytest.MonkeyPatch) -> None:
    resp = wh.search_text("restore MySQL access on 176.99.5.35", mode="find_code", limit=3)
    chunk = resp["lanes"]["code"]["items"][0]["id"]
    episode = wh.search_text("restore MySQL access on 176.99.5.35", limit=3)["lanes"]["episodes"]["items"][0]["id"]
    for _ in range(5):
        ac.record(wh.paths, [chunk, episode])  # stamped by the run clock (AKW_NOW, conftest)
    first = wh.reindex()
    assert first["outcome"] == "noop" and first["trust"]["outcome"] == "computed", "the counter moved"
    fresh = trust.read(wh.paths)
    counted = {e for e in ac.read(wh.paths) if e.startswith("chunk:")}
    assert chunk in counted and {r[0] for r in fresh.values() if r[1] == "code"} == counted, "counted chunks only"
    assert fresh[chunk][5] >= 5 and fresh[chunk][6] == ac.read(wh.paths)[chunk][1]
    demand = 0.2 * math.tanh(fresh[chunk][5] / 10)
    assert fresh[chunk][2] == pytest.approx(0.5 + demand), "accessed today: neutral + full demand"
    base = fresh[episode][2] - 0.2 * math.tanh(fresh[episode][5] / 10)

    monkeypatch.setenv("AKW_NOW", LATER)  # nothing accessed for 60 days
    later = wh.reindex()
    assert later["outcome"] == "noop" and later["trust"]["outcome"] == "computed", "a day passed: decay is due"
    stale = trust.read(wh.paths)
    assert 0.5 < stale[chunk][2] < fresh[chunk][2], "toward neutral, not past it"
    assert stale[chunk][2] - 0.5 == pytest.approx((fresh[chunk][2] - 0.5) * 0.25, rel=0.02), "two half-lives"
    assert abs(stale[episode][2] - base) < abs(fresh[episode][2] - base) / 3, "the episode drifts to its base"
    assert stale[chunk][5] == fresh[chunk][5], "decay forgets nothing: hits stay"
    assert wh.reindex()["trust"] == {"outcome": "fresh"}


def _fused(engine: SearchEngine, query: str) -> list[tuple[Any, ...]]:
    """(lane, entity id, relevance, lane_rank) of the last fusion on this thread's session cursor."""
    engine.search({"schema": "knowledge.search/v1", "query": query, "limit": 10})
    return engine._local.sess.execute(  # the fusion table itself: relevance is not part of a response
        "SELECT lane, grp, relevance, lane_rank FROM _fused WHERE lane IN ('episodes', 'code') "
        "ORDER BY lane, lane_rank").fetchall()


def _pairs(wh: Warehouse) -> tuple[tuple, tuple]:
    """A (query, strong, weak) pair just past the bound and one within it, ranked with neutral trust."""
    engine = SearchEngine(wh.paths.generations, wh.settings)  # no ak_trust: every prior is 1
    far, near = None, None
    for q in QUERIES:
        rows = _fused(engine, q)
        for a, b in itertools.pairwise(rows):
            if a[0] != b[0] or not a[2]:
                continue
            ratio = b[2] / a[2]
            if ratio < trust_bound() and (far is None or ratio > far[3]):
                far = (q, a[1], b[1], ratio)
            if trust_bound() < ratio < 1 and near is None:
                near = (q, a[1], b[1], ratio)
    engine.close()
    assert far is not None and near is not None, "the generated corpus has both kinds of neighbours"
    return far, near


def _with_trust(wh: Warehouse, tmp: Path, scores: dict[str, float]) -> SearchEngine:
    other = dataclasses.replace(wh.paths, home=tmp)
    rows = [(e, "test", t, 0.5, 0.5, 0, None, "2026-12-01T00:00:00Z") for e, t in scores.items()]
    trust.write(other, rows, {"index_rev": "test"})
    return SearchEngine(wh.paths.generations, wh.settings, trust_paths=other)


def test_trust_never_lifts_a_weak_match_past_a_strong_one(wh: Warehouse, tmp_path: Path) -> None:
    (q, strong, weak, ratio), _ = _pairs(wh)
    assert ratio < trust_bound() == pytest.approx((1 - TRUST_BETA) / (1 + TRUST_BETA))
    engine = _with_trust(wh, tmp_path, {weak: 1.0, strong: 0.0})  # the most the prior can do
    rank = {grp: r for _, grp, _, r in _fused(engine, q)}
    assert rank[strong] < rank[weak], f"a match {ratio:.3f} as strong stays below"
    resp = engine.search({"schema": "knowledge.search/v1", "query": q, "limit": 10})
    assert resp.fusion.trust_rev and resp.fusion.trust_rev.startswith("tr-")
    engine.close()


def test_trust_reorders_near_equal_matches(wh: Warehouse, tmp_path: Path) -> None:
    _, (q, higher, lower, ratio) = _pairs(wh)
    engine = _with_trust(wh, tmp_path, {lower: 1.0, higher: 0.0})
    rank = {grp: r for _, grp, _, r in _fused(engine, q)}
    assert rank[lower] < rank[higher], f"within {1 - ratio:.1%} of each other: trust decides"
    engine.close()


def test_neutral_trust_is_exactly_no_prior(wh: Warehouse, tmp_path: Path) -> None:
    plain = SearchEngine(wh.paths.generations, wh.settings)
    rows = {q: _fused(plain, q) for q in QUERIES[:6]}
    plain.close()
    neutral = _with_trust(wh, tmp_path, {grp: 0.5 for r in rows.values() for _, grp, _, _ in r})
    for q, before in rows.items():
        assert _fused(neutral, q) == before, "trust 0.5 multiplies by exactly 1"
    resp = neutral.search({"schema": "knowledge.search/v1", "query": QUERIES[0], "limit": 10})
    assert resp.fusion.trust_rev is None, "no non-neutral trust: the answer of before"
    neutral.close()


def test_forgotten_items_lose_their_trust_row(wh: Warehouse) -> None:
    assert FORGET_HOOKS["trust"] is trust.forget_items
    rows = trust.read(wh.paths)
    sid = wh.sql("SELECT min(session_id) FROM ak_episode WHERE source = 'harness'")["rows"][0][0]
    episodes = {e for e in rows if e.startswith(f"episode:harness:{sid}:")}
    assert episodes
    doc = wh.forget("session", sid, confirm=True)
    assert doc["hooks"]["trust"] >= len(episodes) and doc["residue"] == []
    after = trust.read(wh.paths)
    assert not episodes & set(after) and after, "the rebuild's pass keeps the others"
    assert curation.due(wh.paths, wh.status()["index_rev"], _at(trust.read_meta(wh.paths)["computed_at"])) is False
