"""Content-free usage metrics (spec FR-9, contract 000 §11): how the answers behave in real use.

Per surface (`cli`, `mcp`, `app`, `api`) and UTC day: searches, zero-result answers, weak answers
(`match.level` weak), answers with a degraded lane, answers with both kinds of evidence (episodes and
code), error codes, and latency as a histogram of fixed buckets (P50/P95 are read off it). Counts only:
never a query, an id or a snippet, so nothing here can name forgotten work; `forget all` removes the
store with everything else. A process sums its counts in memory and hands them to the background writer
at most every SUBMIT_EVERY_S (and at exit, and before a read); the writer upserts them in one transaction
into `AKW_HOME/access/usage.sqlite` (WAL, home/counter_store.py, as the access counter); a failure to
count never fails the search.
"""

from __future__ import annotations

import atexit
import logging
import sqlite3
import threading
import time
from bisect import bisect_left
from datetime import UTC, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from warehouse.core import background, clock
from warehouse.core.paths import Paths
from warehouse.home import counter_store

log = logging.getLogger("akw.usage")

# latency bucket upper bounds in ms (the last is open): P50/P95 are reported as a bucket's upper bound
BUCKETS_MS = (2, 5, 10, 15, 20, 30, 40, 50, 60, 80, 100, 150, 200, 300, 500, 1000, 2000, 5000)
COUNTS = ("searches", "zero", "weak", "degraded", "both_evidence", "errors")
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS usage_day (day TEXT NOT NULL, surface TEXT NOT NULL, "
    + ", ".join(f"{c} INTEGER NOT NULL DEFAULT 0" for c in COUNTS) + ", PRIMARY KEY (day, surface))",
    "CREATE TABLE IF NOT EXISTS usage_latency (day TEXT NOT NULL, surface TEXT NOT NULL, bucket INTEGER NOT NULL, "
    "n INTEGER NOT NULL, PRIMARY KEY (day, surface, bucket))",
    "CREATE TABLE IF NOT EXISTS usage_error (day TEXT NOT NULL, surface TEXT NOT NULL, code TEXT NOT NULL, "
    "n INTEGER NOT NULL, PRIMARY KEY (day, surface, code))",
)
LOCKED_RETRY_S = 10.0

# (day, surface) -> {"counts": {name: n}, "latency": {bucket: n}, "errors": {code: n}}
Batch = dict[tuple[str, str], dict[str, dict[Any, int]]]


def store_file(paths: Paths) -> Path:
    return paths.access_dir / "usage.sqlite"


def observe(doc: dict[str, Any] | None, error_code: str | None = None) -> dict[str, int]:
    """The counts one search adds: from its response (`doc`), or its error code when it failed."""
    if doc is None:
        return {"searches": 1, "errors": 1}
    lanes = doc.get("lanes") or {}
    items = {name: len((lane or {}).get("items") or []) for name, lane in lanes.items()}
    return {"searches": 1,
            "zero": int(not doc.get("found") or not (any(items.values()) or doc.get("actors"))),
            "weak": int((doc.get("match") or {}).get("level") == "weak"),
            "degraded": int(any((lane or {}).get("degraded") for lane in lanes.values())),
            "both_evidence": int(items.get("episodes", 0) > 0 and items.get("code", 0) > 0),
            "errors": int(bool(error_code))}


def bucket(ms: float) -> int:
    """The index of the first bucket whose upper bound holds `ms` (len(BUCKETS_MS) = over the last)."""
    return bisect_left(BUCKETS_MS, ms)


SUBMIT_EVERY_S = 2.0  # a process's counts are summed in memory and queued at most this often (and at exit)
_pending: dict[Path, Batch] = {}
_pending_lock = threading.Lock()
_last_submit = 0.0


def record(paths: Paths, surface: str, ms: float, doc: dict[str, Any] | None, error_code: str | None = None) -> bool:
    """Add one search's counts to this process's running sums; they are queued for the background writer at
    most every SUBMIT_EVERY_S (and at exit, and before a read), so a busy search loop costs one write every
    couple of seconds, not one per search. Never waits for SQLite."""
    global _last_submit
    day = clock.now().astimezone(UTC).strftime("%Y-%m-%d")
    entry = {(day, surface): {"counts": observe(doc, error_code), "latency": {bucket(ms): 1},
                              "errors": {error_code: 1} if error_code else {}}}
    f = store_file(paths)
    with _pending_lock:
        _pending[f] = _merge(_pending[f], entry) if f in _pending else entry
        due = time.monotonic() - _last_submit >= SUBMIT_EVERY_S
    return submit() if due else True


def submit() -> bool:
    """Queue what this process counted so far (one batch per store) for the background writer."""
    global _last_submit
    with _pending_lock:
        batches, _last_submit = dict(_pending), time.monotonic()
        _pending.clear()
    return all([background.WRITER.submit_batch(("usage", f), partial(_write, f), b, _merge)
                for f, b in batches.items()])


atexit.register(submit)  # registered after background's own exit flush, so it runs before it


def _merge(a: Batch, b: Batch) -> Batch:
    out = {k: {part: dict(v) for part, v in parts.items()} for k, parts in a.items()}
    for key, parts in b.items():
        into = out.setdefault(key, {"counts": {}, "latency": {}, "errors": {}})
        for part, values in parts.items():
            for k, n in values.items():
                into[part][k] = into[part].get(k, 0) + n
    return out


def _write(f: Path, batch: Batch) -> None:
    """One transaction per batch (on the writer thread); a locked store is retried briefly, then dropped."""
    cols, sets = ", ".join(COUNTS), ", ".join(f"{c} = {c} + excluded.{c}" for c in COUNTS)

    def apply(con: sqlite3.Connection) -> None:
        for (day, surface), parts in sorted(batch.items()):
            counts = parts["counts"]
            con.execute(f"INSERT INTO usage_day (day, surface, {cols}) VALUES (?, ?, {', '.join('?' * len(COUNTS))}) "
                        f"ON CONFLICT(day, surface) DO UPDATE SET {sets}",
                        [day, surface, *(counts.get(c, 0) for c in COUNTS)])
            con.executemany("INSERT INTO usage_latency VALUES (?, ?, ?, ?) ON CONFLICT(day, surface, bucket) "
                            "DO UPDATE SET n = n + excluded.n",
                            [(day, surface, b, n) for b, n in sorted(parts["latency"].items())])
            con.executemany("INSERT INTO usage_error VALUES (?, ?, ?, ?) ON CONFLICT(day, surface, code) "
                            "DO UPDATE SET n = n + excluded.n",
                            [(day, surface, c, n) for c, n in sorted(parts["errors"].items())])

    counter_store.write_batch(f, SCHEMA, apply, LOCKED_RETRY_S, log, "usage metrics")


def _percentile(hist: dict[int, int], q: float) -> int | None:
    """The upper bound (ms) of the bucket holding the q-quantile; over the last bound: that bound, marked by
    the caller as "more than"; None without searches."""
    total = sum(hist.values())
    if not total:
        return None
    seen = 0
    for b in sorted(hist):
        seen += hist[b]
        if seen >= q * total:
            return BUCKETS_MS[min(b, len(BUCKETS_MS) - 1)]
    return BUCKETS_MS[-1]


def summary(paths: Paths, days: int = 7) -> dict[str, Any]:
    """Per surface over the last `days` UTC days (today included): counts, rates and latency P50/P95."""
    submit()
    background.WRITER.flush(5.0)  # this process's counted searches first
    since = (clock.now().astimezone(UTC) - timedelta(days=days - 1)).strftime("%Y-%m-%d")
    doc: dict[str, Any] = {"days": days, "since": since, "by_surface": {}}
    f = store_file(paths)
    if not f.exists():
        return doc
    try:
        con = sqlite3.connect(f"file:{f}?mode=ro", uri=True, timeout=0.5)
        try:
            counts = con.execute(f"SELECT surface, {', '.join(f'sum({c})' for c in COUNTS)} FROM usage_day "
                                 "WHERE day >= ? GROUP BY surface ORDER BY surface", [since]).fetchall()
            lat = con.execute("SELECT surface, bucket, sum(n) FROM usage_latency WHERE day >= ? "
                              "GROUP BY surface, bucket", [since]).fetchall()
            errs = con.execute("SELECT surface, code, sum(n) FROM usage_error WHERE day >= ? GROUP BY surface, code "
                               "ORDER BY surface, code", [since]).fetchall()
        finally:
            con.close()
    except sqlite3.Error as e:  # an unreadable store is no metrics, not a failed status
        log.warning("usage metrics not read: %s", type(e).__name__)
        return doc
    hists: dict[str, dict[int, int]] = {}
    for surface, b, n in lat:
        hists.setdefault(surface, {})[int(b)] = int(n)
    for surface, *values in counts:
        c = dict(zip(COUNTS, (int(v or 0) for v in values), strict=True))
        n = max(c["searches"] - c["errors"], 1)  # the rates are of the answers; a refused search is an error
        doc["by_surface"][surface] = {
            "searches": c["searches"], "answered": c["searches"] - c["errors"],
            "zero_result_rate": round(c["zero"] / n, 3),
            "weak_rate": round(c["weak"] / n, 3), "degraded_share": round(c["degraded"] / n, 3),
            "both_evidence_share": round(c["both_evidence"] / n, 3),
            "latency_ms": {"p50": _percentile(hists.get(surface, {}), 0.5),
                           "p95": _percentile(hists.get(surface, {}), 0.95)},
            "errors": {code: int(k) for s, code, k in errs if s == surface}}
    return doc


def clear(paths: Paths) -> bool:
    """`forget all`: the store goes with everything else (it holds counts only)."""
    with _pending_lock:
        _pending.clear()
    background.WRITER.flush(5.0)
    removed = False
    for suffix in ("", "-wal", "-shm"):
        f = Path(f"{store_file(paths)}{suffix}")
        if f.exists():
            f.unlink()
            removed = True
    return removed
