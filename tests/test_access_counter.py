"""Issue 16 access counter and trust decay: the counter moves only for what a response returned or a
card opened (never raw candidates), is written off the response path (a locked counter never holds a
search up; the CLI flushes at exit), survives rebuilds, forgets forgotten items; trust decays toward
neutral for stale entities, and the ranking prior is bounded."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from access_homes import build
from homes import BuiltHome

from warehouse.api import Warehouse
from warehouse.home import access_counter as ac

AKW = Path(sys.executable).with_name("akw")
FORGOTTEN: set[str] = set()  # forgotten by a test above: their later hits are dropped by design


@pytest.fixture(scope="module")
def wh(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return build(home24, tmp_path_factory.mktemp("counter"))[1]


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
    FORGOTTEN.update(gone)
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


def test_search_never_waits_for_the_counter(wh: Warehouse) -> None:
    """The count is written off the response path: with the counter locked by another connection a
    search still answers (its hit is queued, not written, nor dropped) and lands once the lock goes."""
    req = {"schema": "knowledge.search/v1", "query": "nginx config", "limit": 2}
    t0 = time.perf_counter()
    wh.search(req)
    free_s = time.perf_counter() - t0
    before = ac.read(wh.paths)
    lock = sqlite3.connect(ac.counter_file(wh.paths), timeout=0.1)
    try:
        lock.execute("BEGIN EXCLUSIVE")  # every other writer now gets SQLITE_BUSY
        t0 = time.perf_counter()
        resp = wh.search(req)
        locked_s = time.perf_counter() - t0
        returned = set(ac.response_entities(resp))
        assert returned
        assert locked_s < free_s + 0.4, "the search did not sit out the counter's busy timeout (0.5 s)"
        assert ac.flush(timeout=0.3) is False, "the hit is still queued: the search returned before it was written"
        seen = dict(lock.execute("SELECT entity, hits FROM access_counter").fetchall())
        assert all(seen.get(e, 0) == before.get(e, (0, ""))[0] for e in returned), "not written while locked"
    finally:
        lock.rollback()
        lock.close()
    assert ac.flush() is True
    after = ac.read(wh.paths)
    assert all(after[e][0] == before.get(e, (0, ""))[0] + 1 for e in returned), "the hit landed after the lock"


def test_a_forgotten_entity_loses_a_hit_queued_before_and_after(wh: Warehouse) -> None:
    """Forget runs on the writer after every queued hit, and a later hit of a forgotten entity (queued by
    any process) is dropped at write time: no counter row of it comes back."""
    ac.record(wh.paths, ["ent:doomed", "ent:kept"])  # queued, perhaps not written yet
    assert ac.forget_items(wh.paths, {"ent:doomed"}) == 1, "the queued hit was written first, then wiped"
    ac.record(wh.paths, ["ent:doomed", "ent:kept"])  # a response built before the forget
    other = subprocess.run([sys.executable, "-c", "import sys; from warehouse.home import access_counter as ac; "
                            "from warehouse.core.paths import Paths; p = Paths.resolve(home=sys.argv[1]); "
                            "ac.record(p, ['ent:doomed'])", str(wh.paths.home)], check=False, timeout=60)
    assert other.returncode == 0
    counts = ac.read(wh.paths)
    assert "ent:doomed" not in counts and counts["ent:kept"][0] >= 2
    assert b"ent:doomed" not in ac.counter_file(wh.paths).read_bytes(), "only a salted hash remains"


def test_cli_search_then_another_process_reads_the_hits(wh: Warehouse) -> None:
    """`akw search` exits right after printing: the queued hits are flushed at interpreter exit."""
    before = ac.read(wh.paths)
    base = {k: v for k, v in os.environ.items() if not k.startswith("AKW_")}
    r = subprocess.run([str(AKW), "--home", str(wh.paths.home), "--dsh-home", str(wh.paths.dsh_home),
                        "--autoclaw-root", str(wh.paths.autoclaw_root), "search", "backup postgres", "--json"],
                       capture_output=True, env=base, timeout=120, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    returned = set(ac.response_entities(json.loads(r.stdout))) - FORGOTTEN
    assert returned
    reader = subprocess.run([sys.executable, "-c", "import json, sys; from warehouse.home import access_counter as ac; "
                             "from warehouse.core.paths import Paths; "
                             "print(json.dumps(ac.read(Paths.resolve(home=sys.argv[1]))))", str(wh.paths.home)],
                            capture_output=True, timeout=60, check=True)
    after = json.loads(reader.stdout)
    assert all(after[e][0] == before.get(e, (0, ""))[0] + 1 for e in returned)
