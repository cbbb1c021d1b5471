"""Issue 16 access counter and trust decay: the counter moves only for what a response returned or a
card opened (never raw candidates), survives rebuilds, forgets forgotten items; trust decays toward
neutral for stale entities, and the ranking prior is bounded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from access_homes import build

from warehouse import access_counter as ac
from warehouse.api import Warehouse


@pytest.fixture(scope="module")
def wh(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return build(tmp_path_factory.mktemp("counter"))[1]


def test_counter_moves_only_for_returned_items(wh: Warehouse) -> None:
    ac.counter_file(wh.paths).unlink(missing_ok=True)
    resp = wh.search({"schema": "knowledge.search/v1", "query": "restore MySQL access on 176.99.5.35", "limit": 3})
    returned = set(ac.response_entities(resp))
    counts = ac.read(wh.paths)
    assert returned and set(counts) == returned, "exactly the returned items and actors, no candidates"
    assert all(h == 1 for h, _ in counts.values())
    assert oct(ac.counter_file(wh.paths).stat().st_mode & 0o777) == "0o600"
    wh.search({"schema": "knowledge.search/v1", "query": "restore MySQL access on 176.99.5.35", "limit": 3})
    assert all(ac.read(wh.paths)[e][0] == 2 for e in returned)
    actor = resp["actors"][0]["actor_id"]
    wh.get("agent", actor)
    assert ac.read(wh.paths)[actor][0] == 3, "opening a card counts"
    big = wh.search({"schema": "knowledge.search/v1", "query": "restore MySQL access on 176.99.5.35", "limit": 20})
    assert set(ac.response_entities(big)) - returned, "a larger answer returns more items"
    never = set(ac.response_entities(big)) - returned
    assert all(ac.read(wh.paths)[e][0] == 1 for e in never)


def test_counter_survives_a_rebuild_and_forgets(wh: Warehouse) -> None:
    before = ac.read(wh.paths)
    assert before
    wh.reindex(mode="full")
    assert ac.read(wh.paths) == before
    gone = sorted(before)[:2]
    assert ac.forget_items(wh.paths, set(gone)) == 2
    assert not set(gone) & set(ac.read(wh.paths))


def test_counting_can_be_turned_off(wh: Warehouse, tmp_path: Path) -> None:
    off = Warehouse(wh.paths, wh.settings.with_value("access.count_hits", "false"))
    before = ac.read(wh.paths)
    off.search({"schema": "knowledge.search/v1", "query": "nginx config"})
    assert ac.read(wh.paths) == before


def test_decay_moves_a_stale_item_toward_neutral() -> None:
    now = datetime(2026, 12, 1, tzinfo=UTC)
    base = ac.trust_score(0.5, 0.5, 0, None, now)
    assert base == ac.NEUTRAL
    fresh = ac.trust_score(0.5, 0.5, 25, now.strftime("%Y-%m-%dT%H:%M:%SZ"), now)
    old = [ac.trust_score(0.5, 0.5, 25, (now - timedelta(days=d)).strftime("%Y-%m-%dT%H:%M:%SZ"), now)
           for d in (30, 90, 365)]
    assert fresh > old[0] > old[1] > old[2] > base
    assert old[2] - base < 0.001, "a year without access: back to neutral"
    assert abs((old[0] - base) - (fresh - base) / 2) < 1e-9, "half-life 30 days"
    strong = ac.trust_score(1.0, 1.0, 0, None, now)
    assert ac.trust_score(1.0, 1.0, 1000, now.isoformat(), now) <= 1.0 and strong > base


def test_prior_is_bounded_and_never_lets_a_weak_match_pass_a_strong_one() -> None:
    for trust in (0.0, 0.5, 1.0, 7.0, -3.0):
        assert abs(ac.prior(1.0, trust) - 1.0) <= ac.PRIOR_MAX + 1e-12
    strong, weak = 1.0, 1.0 / (1.0 + 3 * ac.PRIOR_MAX)
    assert ac.prior(weak, 1.0) < ac.prior(strong, 0.0)
