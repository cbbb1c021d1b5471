"""The feedback a search engine ranks with, as a score per document: read from disk once, not per search.

The engine asks `refresh()` on every search; the log is re-read only when a stat (at most once per
`CHECK_S`) shows it changed, or at once after `invalidate()` (a feedback call in this process, a
new generation). The scores per result id are mapped to document ids by one statement over
`ak_document` (sql/queries/feedback_docs.sql), so fusion reads each hit's score from the hits
literal and joins nothing (fuse.sql `$16`).
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import duckdb

from warehouse import feedback, literals
from warehouse.sqlfiles import query_sql

CHECK_S = 1.0  # how stale another process's feedback may be in a long-lived search process


class FeedbackScores:
    def __init__(self, log_file: Path | None) -> None:
        self.log_file = log_file
        self.by_doc: dict[int, float] = {}  # document id -> score in [-1, 1], of the open generation
        self.rev: str | None = None  # digest of by_doc (the response's fusion.feedback_rev); None when empty
        self._sig: tuple[int, int, int] | None = None
        self._checked = -CHECK_S
        self._stale = True

    def invalidate(self) -> None:
        """Re-read and re-map on the next `refresh` (a new generation, or feedback recorded here)."""
        self._checked, self._stale = -CHECK_S, True

    def refresh(self, con: duckdb.DuckDBPyConnection) -> bool:
        """Re-read the log if it changed (checked at most once per CHECK_S); True when scores moved."""
        now = time.monotonic()
        if self.log_file is None or (not self._stale and now - self._checked < CHECK_S):
            return False
        self._checked = now
        sig = feedback.signature(self.log_file)
        if sig == self._sig and not self._stale:
            return False
        self._sig, self._stale = sig, False
        scores = feedback.scores(feedback.read_log(self.log_file)) if sig is not None else {}
        by_doc: dict[int, float] = {}
        if scores:
            values = ", ".join(f"({literals.text(feedback.fusion_key(k))}, {literals.double(v)})"
                               for k, v in sorted(scores.items()))
            rows = con.cursor().execute(query_sql("feedback_docs").replace("{scores}", values)).fetchall()
            by_doc = {int(d): float(s) for d, s in rows}
        moved = by_doc != self.by_doc
        self.by_doc = by_doc
        self.rev = "fb-" + hashlib.sha256(json.dumps(sorted(by_doc.items())).encode()).hexdigest()[:16] \
            if by_doc else None
        return moved
