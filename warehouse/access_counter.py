"""`access_counter(entity, hits, last_accessed_at)` (issue 16, seed 004): what was actually used.

Counted only when an entity was returned in a response (a search item or actor, a dispatch target)
or opened (a card) — never a raw candidate: being retrieved once is not being useful. One cheap
upsert per response into `AKW_HOME/access/counter.sqlite` (WAL, no fsync per write), after the
response is built; a failure to count never fails the read. The file lives outside the generations,
so counters survive rebuilds; `forget_items` drops the counters of forgotten entities.

`trust_score` is the curation formula that turns a counter into a bounded prior (docs/access.md):
demand decays toward neutral for long-unaccessed entities, so forgotten ones sink without deletion.
"""

from __future__ import annotations

import logging
import math
import os
import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from warehouse import clock
from warehouse.paths import Paths

log = logging.getLogger("akw.access")

SCHEMA = ("CREATE TABLE IF NOT EXISTS access_counter (entity TEXT PRIMARY KEY, hits INTEGER NOT NULL, "
          "last_accessed_at TEXT NOT NULL)")
UPSERT = ("INSERT INTO access_counter (entity, hits, last_accessed_at) VALUES (?, 1, ?) "
          "ON CONFLICT(entity) DO UPDATE SET hits = hits + 1, last_accessed_at = excluded.last_accessed_at")

NEUTRAL = 0.5  # trust_score of an entity we know nothing about
DEMAND_WEIGHT = 0.2  # how far demand alone lifts trust above its other inputs (0 .. +0.2)
DEMAND_SATURATION = 10.0  # hits at which demand is ~76% of its maximum (tanh)
HALF_LIFE_DAYS = 30.0  # demand halves every 30 days without an access
PRIOR_MAX = 0.05  # ranking prior: score × (1 + PRIOR_MAX·(2·trust − 1)), at most ±5%


def counter_file(paths: Paths) -> Path:
    return paths.home / "access" / "counter.sqlite"


def _connect(paths: Paths) -> sqlite3.Connection:
    f = counter_file(paths)
    f.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fresh = not f.exists()
    con = sqlite3.connect(f, timeout=0.5)
    if fresh:
        os.chmod(f, 0o600)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=OFF")  # a lost increment after a crash is harmless
    con.execute("PRAGMA secure_delete=ON")  # a deleted row's bytes are zeroed, not left in a free page
    con.execute(SCHEMA)
    return con


def _now() -> str:
    return clock.now().astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")  # AKW_NOW pins it (decay tests)


def record(paths: Paths, entities: Iterable[str], now: str | None = None) -> int:
    """hits++ and last_accessed_at for each distinct entity; returns how many were counted (0 on failure)."""
    ids = sorted({e for e in entities if isinstance(e, str) and e})
    if not ids:
        return 0
    try:
        con = _connect(paths)
        try:
            with con:
                con.executemany(UPSERT, [(e, now or _now()) for e in ids])
        finally:
            con.close()
    except (OSError, sqlite3.Error) as e:  # counting is best effort: the read already answered
        log.warning("access counter not updated: %s", type(e).__name__)
        return 0
    return len(ids)


def read(paths: Paths) -> dict[str, tuple[int, str]]:
    """entity -> (hits, last_accessed_at); empty when nothing was counted yet."""
    if not counter_file(paths).exists():
        return {}
    con = _connect(paths)
    try:
        return {e: (int(h), t) for e, h, t in con.execute("SELECT entity, hits, last_accessed_at FROM access_counter")}
    finally:
        con.close()


def forget_items(paths: Paths, item_ids: set[str]) -> int:
    """Forgotten entities lose their counters (called by forget); returns how many rows went."""
    if not item_ids or not counter_file(paths).exists():
        return 0
    con = _connect(paths)
    try:
        with con:
            cur = con.executemany("DELETE FROM access_counter WHERE entity = ?", [(i,) for i in sorted(item_ids)])
            n = cur.rowcount
        # forget proves no residue by raw bytes: rewrite the file and empty the WAL, which held the rows
        con.execute("VACUUM")
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return n
    finally:
        con.close()


def response_entities(doc: dict[str, Any]) -> list[str]:
    """What a search response returned: its lane items (by id, a skill without one by name) and actors."""
    out: list[str] = []
    for lane in ("episodes", "code", "skills"):
        for item in (doc.get("lanes", {}).get(lane) or {}).get("items", []):
            out.append(item.get("id") or item.get("name") or "")
    out += [a.get("actor_id", "") for a in doc.get("actors", [])]
    return out


def trust_score(authority: float, outcome: float, hits: int, last_accessed_at: str | None,
                now: datetime) -> float:
    """Curation: trust in [0, 1] from source authority and outcome (each 0..1, 0.5 = unknown) and demand.

      base   = 0.5 + 0.4·(authority − 0.5) + 0.4·(outcome − 0.5)        (0.1 .. 0.9)
      demand = tanh(hits / 10) · 2^(−days since last access / 30)      (0 .. 1; → 0 when stale)
      trust  = clamp(base + 0.2·demand, 0, 1)
    Demand only ever adds, and decays: a long-unaccessed entity drifts back to its neutral `base`
    (forgotten items sink without deletion); one never accessed has exactly `base`.
    """
    base = NEUTRAL + 0.4 * (authority - NEUTRAL) + 0.4 * (outcome - NEUTRAL)
    demand = 0.0
    if hits > 0 and last_accessed_at:
        last = datetime.fromisoformat(last_accessed_at.replace("Z", "+00:00"))
        days = max((now - last).total_seconds() / 86400.0, 0.0)
        demand = math.tanh(hits / DEMAND_SATURATION) * 0.5 ** (days / HALF_LIFE_DAYS)
    return min(max(base + DEMAND_WEIGHT * demand, 0.0), 1.0)


def prior(score: float, trust: float) -> float:
    """The bounded ranking prior: at most ±PRIOR_MAX of the score itself, so a weak match never passes a
    strong one by trust alone (a strong match leads by more than 2·PRIOR_MAX in RRF terms)."""
    return score * (1.0 + PRIOR_MAX * (2.0 * min(max(trust, 0.0), 1.0) - 1.0))
