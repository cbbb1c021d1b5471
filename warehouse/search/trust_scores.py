"""The trust prior a search engine ranks with, as a trust per document: read from disk once, not per search.

`ak_trust` (warehouse/trust.py, written by the curation pass of reindex) holds one score per entity;
the engine re-reads it only when a stat (at most once per `CHECK_S`) shows a new file, or after
`invalidate()` (a new generation), and maps the non-neutral entities to document ids with one
statement over `ak_document` (sql/queries/trust_docs.sql). Fusion then reads each hit's trust from
the hits literal and joins nothing (fuse.sql `$17`); a document without a score is neutral (0.5),
whose prior is exactly 1.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time

import duckdb

from warehouse import literals, trust
from warehouse.paths import Paths
from warehouse.sqlfiles import query_sql

CHECK_S = 1.0  # how stale another process's curation pass may be in a long-lived search process


class TrustScores:
    def __init__(self, paths: Paths | None) -> None:
        self.paths = paths
        self.by_doc: dict[int, float] = {}  # document id -> trust in [0, 1] (absent: 0.5), of the open generation
        self.rev: str | None = None  # digest of by_doc (the response's fusion.trust_rev); None when empty
        self._sig: tuple[int, int, int] | None = None
        self._checked = -CHECK_S
        self._stale = True

    def invalidate(self) -> None:
        self._checked, self._stale = -CHECK_S, True

    def refresh(self, con: duckdb.DuckDBPyConnection) -> bool:
        """Re-read the table if it changed (checked at most once per CHECK_S); True when the scores moved."""
        now = time.monotonic()
        if self.paths is None or (not self._stale and now - self._checked < CHECK_S):
            return False
        self._checked = now
        sig = trust.signature(self.paths)
        if sig == self._sig and not self._stale:
            return False
        self._sig, self._stale = sig, False
        try:
            scores = {e: float(r[2]) for e, r in trust.read(self.paths, non_neutral=True).items()} if sig else {}
        except sqlite3.Error:  # unreadable: rank neutrally rather than fail a search
            scores = {}
        by_doc: dict[int, float] = {}
        if scores:
            values = ", ".join(f"({literals.text(e)}, {literals.double(v)})" for e, v in sorted(scores.items()))
            rows = con.cursor().execute(query_sql("trust_docs").replace("{scores}", values)).fetchall()
            by_doc = {int(d): float(t) for d, t in rows}
        moved = by_doc != self.by_doc
        self.by_doc = by_doc
        self.rev = "tr-" + hashlib.sha256(json.dumps(sorted(by_doc.items())).encode()).hexdigest()[:16] \
            if by_doc else None
        return moved
