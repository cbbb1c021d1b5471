"""The curation pass of reindex (issue 16): recompute `ak_trust` from its inputs, never accumulate.

It runs after a generation is published, and on a no-op reindex only when an input moved: the
published generation (authority and outcome come from its marts), the access counter (its file's
stat), or the clock by a day or more (demand decays; a day is 2% of a half-life). The check is one
stat and one small read, so a no-op reindex stays a no-op in cost. The table lives beside the
generation, not in it (warehouse/home/trust.py: counter and clock never enter a generation or `index_rev`).
A failed pass never fails the reindex: ranking then keeps the previous table, or none (neutral).
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from warehouse.core import clock, literals
from warehouse.core.paths import Paths
from warehouse.core.sqlfiles import render
from warehouse.home import access_counter, generation, trust

log = logging.getLogger("akw.curation")

REFRESH_S = 86400.0  # recompute at most this stale (decay), even when nothing else changed


def counter_signature(paths: Paths) -> str:
    """The counter file and its WAL (where a write lands first): mtime and size of each."""
    f = access_counter.counter_file(paths)
    parts = []
    for p in (f, Path(str(f) + "-wal")):
        try:
            st = p.stat()
            parts.append(f"{st.st_mtime_ns}:{st.st_size}")
        except OSError:
            parts.append("-")
    return "/".join(parts)


def _iso(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def due(paths: Paths, index_rev: str, now: datetime) -> bool:
    """Whether an input moved since the last pass (or there is none)."""
    meta = trust.read_meta(paths)
    if meta.get("index_rev") != index_rev or meta.get("counter") != counter_signature(paths):
        return True
    try:
        last = datetime.fromisoformat(meta["computed_at"].replace("Z", "+00:00"))
    except (KeyError, ValueError):
        return True
    return abs((now - last).total_seconds()) >= REFRESH_S


def run(paths: Paths, force: bool = False) -> dict[str, Any]:
    """Recompute ak_trust against the published generation if due; a summary for the reindex result."""
    t0 = time.perf_counter()
    published = generation.current(paths.generations)
    if published is None:
        return {"outcome": "skipped"}
    now = clock.now()
    if not force and not due(paths, published.index_rev, now):
        return {"outcome": "fresh"}
    try:
        sig = counter_signature(paths)  # before the read: a write during the pass makes the next one due
        counts = access_counter.read(paths)
        rows = compute(paths, counts, now)
        computed_at = _iso(now)
        n = trust.write(paths, [(*r, computed_at) for r in rows],
                        {"index_rev": published.index_rev, "counter": sig, "computed_at": computed_at})
    except Exception as e:  # best effort: ranking keeps the previous table (or neutral)
        log.warning("curation pass failed: %s", type(e).__name__)
        return {"outcome": "failed", "error": type(e).__name__}
    return {"outcome": "computed", "entities": n, "counted": len(counts),
            "duration_s": round(time.perf_counter() - t0, 3)}


def compute(paths: Paths, counts: dict[str, tuple[int, str]], now: datetime) -> list[tuple]:
    """(entity_id, kind, trust_score, authority, outcome, hits, last_accessed_at) per entity, by id."""
    counter = ", ".join(f"({literals.text(e)}, {int(h)}::BIGINT, {literals.text(t)})"
                        for e, (h, t) in sorted(counts.items()))
    counter = counter or "(NULL::VARCHAR, 0::BIGINT, NULL::VARCHAR)"  # typed, joins nothing
    sql = render("curation_trust", counter=counter, now=literals.timestamp(now))
    con, _gen = generation.open_current(paths.generations)  # the reader policy: shares a search's instance
    try:
        return [tuple(r) for r in con.cursor().execute(sql).fetchall()]
    finally:
        con.close()
