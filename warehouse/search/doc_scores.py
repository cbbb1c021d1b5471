"""A score per document that a search engine ranks with, read from disk once, not per search.

Feedback (feedback_scores.py) and trust (trust_scores.py) share the shape: the engine asks
`refresh()` on every search; the source is re-read only when a stat (at most once per `CHECK_S`)
shows it changed, or at once after `invalidate()` (a new generation, a write in this process). The
scores per entity are mapped to document ids by one statement over `ak_document` (a
`sql/queries/*_docs.sql` with a `{scores}` VALUES list), so fusion reads each hit's score from the
hits literal and joins nothing.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Hashable, Mapping

import duckdb

from warehouse.core import literals
from warehouse.core.sqlfiles import render

CHECK_S = 1.0  # how stale another process's writes may be in a long-lived search process


class DocScores:
    """Subclasses say where the scores come from (`signature`, `scores`), which statement maps them
    to documents (`QUERY`) and how the response names their digest (`REV_PREFIX`)."""

    QUERY = ""
    REV_PREFIX = ""

    def __init__(self) -> None:
        self.by_doc: dict[int, float] = {}  # document id -> score, of the open generation (absent: neutral)
        self.rev: str | None = None  # digest of by_doc (the response's fusion.*_rev); None when empty
        self._sig: Hashable | None = None
        self._checked = -CHECK_S
        self._stale = True

    def enabled(self) -> bool:
        return True

    def signature(self) -> Hashable | None:
        """What changes when the source does (a stat); None when there is no source yet."""
        raise NotImplementedError

    def scores(self) -> Mapping[str, float]:
        """entity key (as the mapping statement matches it) -> score."""
        raise NotImplementedError

    def invalidate(self) -> None:
        """Re-read and re-map on the next `refresh`."""
        self._checked, self._stale = -CHECK_S, True

    def refresh(self, con: duckdb.DuckDBPyConnection) -> bool:
        """Re-read the source if it changed (checked at most once per CHECK_S); True when scores moved."""
        now = time.monotonic()
        if not self.enabled() or (not self._stale and now - self._checked < CHECK_S):
            return False
        self._checked = now
        sig = self.signature()
        if sig == self._sig and not self._stale:
            return False
        self._sig, self._stale = sig, False
        scores = self.scores() if sig is not None else {}
        by_doc: dict[int, float] = {}
        if scores:
            values = ", ".join(f"({literals.text(k)}, {literals.double(v)})" for k, v in sorted(scores.items()))
            rows = con.cursor().execute(render(self.QUERY, scores=values)).fetchall()
            by_doc = {int(d): float(s) for d, s in rows}
        moved = by_doc != self.by_doc
        self.by_doc = by_doc
        self.rev = self.REV_PREFIX + hashlib.sha256(json.dumps(sorted(by_doc.items())).encode()).hexdigest()[:16] \
            if by_doc else None
        return moved
