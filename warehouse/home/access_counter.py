"""`access_counter(entity, hits, last_accessed_at)` (issue 16, seed 004): what was actually used.

Counted only when an entity was returned in a response (a search item or actor, a dispatch target)
or opened (a card) — never a raw candidate: being retrieved once is not being useful. The count is
off the response path: `record` only queues the entities; one background writer thread per process
drains the (bounded) queue and writes each batch as one upsert transaction into
`AKW_HOME/access/counter.sqlite` (WAL, no fsync per write). A locked database is retried by the
writer, never waited for by a read; a failure to count never fails the read. `flush()` waits until
everything queued so far is written (`read`, forget and interpreter exit call it); a process that
dies without exiting loses at most its unflushed batch (a few hundred ms of hits).

The file lives outside the generations, so counters survive rebuilds. `forget_items` runs on the
writer too, after every hit queued before it, and leaves a salted hash of each forgotten entity
(`access_forgotten`, content-free like tombstones.json): a hit queued later — by this or another
process — for a forgotten entity is dropped at write time, so no counter row of it comes back.

`trust_score` is the curation formula that turns a counter into a bounded prior (docs/access.md):
demand decays toward neutral for long-unaccessed entities, so forgotten ones sink without deletion.
"""

from __future__ import annotations

import hashlib
import logging
import math
import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from warehouse.core import background, clock
from warehouse.core.paths import Paths
from warehouse.home import counter_store

log = logging.getLogger("akw.access")

SCHEMA = ("CREATE TABLE IF NOT EXISTS access_counter (entity TEXT PRIMARY KEY, hits INTEGER NOT NULL, "
          "last_accessed_at TEXT NOT NULL)",
          "CREATE TABLE IF NOT EXISTS access_forgotten (h TEXT PRIMARY KEY) WITHOUT ROWID")
# a forgotten entity's hit (queued before its forget reached this file, or by another process) is dropped
UPSERT = ("INSERT INTO access_counter (entity, hits, last_accessed_at) SELECT ?1, ?2, ?3 "
          "WHERE NOT EXISTS (SELECT 1 FROM access_forgotten WHERE h = ?4) "
          "ON CONFLICT(entity) DO UPDATE SET hits = hits + excluded.hits, "
          "last_accessed_at = max(last_accessed_at, excluded.last_accessed_at)")
_SALT = "akw-access-forgotten/v1"
LOCKED_RETRY_S = 30.0  # the writer retries a locked counter this long, then drops the batch (logged)
FLUSH_S = 10.0  # `read` and `forget_items` wait at most this long for the queued hits
NEUTRAL = 0.5  # trust_score of an entity we know nothing about
DEMAND_WEIGHT = 0.2  # how far demand alone lifts trust above its other inputs (0 .. +0.2)
DEMAND_SATURATION = 10.0  # hits at which demand is ~76% of its maximum (tanh)
HALF_LIFE_DAYS = 30.0  # demand halves every 30 days without an access
PRIOR_MAX = 0.05  # ranking prior: score × (1 + PRIOR_MAX·(2·trust − 1)), at most ±5%


def counter_file(paths: Paths) -> Path:
    return paths.access_counter


def _connect(f: Path) -> sqlite3.Connection:
    return counter_store.connect(f, SCHEMA, secure_delete=True)  # a deleted row's bytes are zeroed


def _now() -> str:
    return clock.now().astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")  # AKW_NOW pins it (decay tests)


def _forgotten(entity: str) -> str:
    return hashlib.sha256(f"{_SALT}\x00{entity}".encode()).hexdigest()


Hits = dict[str, tuple[int, str]]  # entity -> (hits to add, last access)


def _merge(a: Hits, b: Hits) -> Hits:
    out = dict(a)
    for e, (h, t) in b.items():
        h0, t0 = out.get(e, (0, t))
        out[e] = (h0 + h, max(t0, t))
    return out


def _write(f: Path, hits: Hits) -> None:
    """One transaction for a batch (on the writer thread); a locked file is retried, not waited on by reads."""
    rows = [(e, h, t, _forgotten(e)) for e, (h, t) in sorted(hits.items())]
    counter_store.write_batch(f, SCHEMA, lambda con: con.executemany(UPSERT, rows), LOCKED_RETRY_S, log,
                              "access counter", secure_delete=True)


def record(paths: Paths, entities: Iterable[str], now: str | None = None) -> int:
    """Queue hits++ and last_accessed_at for each distinct entity (written by the background writer);
    returns how many were queued (0 when none or the queue is full). Never waits for SQLite."""
    ids = sorted({e for e in entities if isinstance(e, str) and e})
    if not ids:
        return 0
    at = now or _now()
    f = counter_file(paths)
    ok = background.WRITER.submit_batch(("access_counter", f), partial(_write, f), {e: (1, at) for e in ids}, _merge)
    return len(ids) if ok else 0


def flush(timeout: float | None = FLUSH_S) -> bool:
    """Wait until every hit queued so far in this process is written; False on timeout."""
    return background.WRITER.flush(timeout)


def read(paths: Paths) -> dict[str, tuple[int, str]]:
    """entity -> (hits, last_accessed_at), after this process's queued hits; empty when none yet."""
    flush()
    if not counter_file(paths).exists():
        return {}
    con = _connect(counter_file(paths))
    try:
        return {e: (int(h), t) for e, h, t in con.execute("SELECT entity, hits, last_accessed_at FROM access_counter")}
    finally:
        con.close()


def forget_items(paths: Paths, item_ids: set[str]) -> int:
    """Forgotten entities lose their counters (called by forget); returns how many rows went.

    Runs on the writer, after every hit this process queued before it; the salted hashes it leaves
    drop any later hit of these entities, so no queued or concurrent write brings a row back."""
    if not item_ids:
        return 0
    return int(background.WRITER.call(partial(_forget, counter_file(paths), sorted(item_ids)), FLUSH_S))


def _forget(f: Path, ids: list[str]) -> int:
    con = _connect(f)
    try:
        with con:
            con.executemany("INSERT OR IGNORE INTO access_forgotten (h) VALUES (?)", [(_forgotten(i),) for i in ids])
            n = con.executemany("DELETE FROM access_counter WHERE entity = ?", [(i,) for i in ids]).rowcount
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
