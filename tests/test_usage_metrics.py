"""Content-free usage metrics (spec FR-9, contract 000 §11; issue 28): counts per surface and day.

A real home (the shared small one, copied), real searches through the API and the CLI (in-process), the
real store under AKW_HOME: what `status` reports, that the store holds no query text, and that
`forget all` clears it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import akw_json
from homes import BuiltHome, env_of, q

from warehouse.api import Warehouse
from warehouse.core.errors import KnowledgeError
from warehouse.home import usage


@pytest.fixture()
def wh(small: BuiltHome, tmp_path: Path) -> Warehouse:
    return small.copy(tmp_path / "akw")


def test_searches_are_counted_per_surface_with_rates_latency_and_error_codes(wh: Warehouse) -> None:
    found = q(wh, "restore mysql access")
    q(wh, "zzqx vorpal frumious bandersnatch")  # nothing of it is indexed
    with pytest.raises(KnowledgeError):
        wh.search({"schema": "knowledge.search/v1", "query": "x", "limit": 10**9})
    code, _ = akw_json("search", "restore mysql access", env=env_of(wh))
    assert code == 0 and found["found"]
    u = wh.usage()
    api, cli = u["by_surface"]["api"], u["by_surface"]["cli"]
    assert api["searches"] == 3 and cli["searches"] == 1
    assert api["answered"] == 2 and api["zero_result_rate"] == 0.5  # the absent topic; the refused one is an error
    assert api["errors"] == {"KNOWLEDGE_INVALID_REQUEST": 1} and cli["errors"] == {}
    assert cli["zero_result_rate"] == 0.0 and 0 <= api["both_evidence_share"] <= 1
    assert api["latency_ms"]["p50"] in usage.BUCKETS_MS and api["latency_ms"]["p95"] >= api["latency_ms"]["p50"]
    assert wh.status()["usage"]["by_surface"] == u["by_surface"]  # status shows the same


def test_the_store_holds_counts_only_and_forget_all_clears_it(wh: Warehouse) -> None:
    q(wh, "quetzalcoatl-migration of the billing cluster")
    assert wh.usage()["by_surface"]["api"]["searches"] == 1  # counted in memory, written before a read
    store = usage.store_file(wh.paths)
    raw = b"".join(p.read_bytes() for p in store.parent.glob(store.name + "*"))
    assert raw and b"quetzalcoatl" not in raw and b"billing" not in raw
    assert store.stat().st_mode & 0o077 == 0
    code, doc = akw_json("forget", "all", "--yes", env=env_of(wh))
    assert code == 0 and doc["hooks"]["usage"] == 1
    assert wh.usage()["by_surface"] == {} and not store.exists()


def test_a_bucket_histogram_gives_the_percentiles() -> None:
    hist = {usage.bucket(ms): 0 for ms in (1,)}
    for ms in [3] * 50 + [12] * 45 + [700] * 5:
        hist[usage.bucket(ms)] = hist.get(usage.bucket(ms), 0) + 1
    assert usage._percentile(hist, 0.5) == 5 and usage._percentile(hist, 0.95) == 15
    assert usage._percentile({}, 0.5) is None and usage.bucket(10**6) == len(usage.BUCKETS_MS)
