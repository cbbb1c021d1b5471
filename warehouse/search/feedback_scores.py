"""The feedback aggregate a search engine ranks with: read from disk once, not per search.

The engine asks `current()` on every search; the log is re-read only when a stat (at most once per
`CHECK_S`) shows it changed, or when the engine is told to (`invalidate`, after a feedback call in
this process). Each session cursor copies the scores into its `_fb` table when their version moves.
"""

from __future__ import annotations

import time
from pathlib import Path

import duckdb

from warehouse import feedback, literals

CHECK_S = 1.0  # how stale another process's feedback may be in a long-lived search process


class FeedbackScores:
    def __init__(self, log_file: Path | None) -> None:
        self.log_file = log_file
        self.version = 0
        self.rows: list[tuple[str, float]] = []
        self._sig: tuple[int, int, int] | None = None
        self._checked = -CHECK_S
        self.refresh(force=True)

    def invalidate(self) -> None:
        self._checked = -CHECK_S

    def refresh(self, force: bool = False) -> bool:
        """Re-read the log if it changed (checked at most once per CHECK_S); True when scores moved."""
        now = time.monotonic()
        if self.log_file is None or (not force and now - self._checked < CHECK_S):
            return False
        self._checked = now
        sig = feedback.signature(self.log_file)
        if sig == self._sig and not force:
            return False
        self._sig = sig
        scores = feedback.scores(feedback.read_log(self.log_file)) if sig is not None else {}
        rows = sorted((feedback.fusion_key(k), v) for k, v in scores.items())
        if rows == self.rows:
            return False
        self.rows, self.version = rows, self.version + 1
        return True

    def fill(self, sess: duckdb.DuckDBPyConnection) -> None:
        """Put the scores into a session cursor's `_fb` table (numbers and dollar-quoted ids only)."""
        sess.execute("DELETE FROM _fb")
        if self.rows:
            values = ", ".join(f"({literals.text(k)}, {literals.double(v)})" for k, v in self.rows)
            sess.execute(f"INSERT INTO _fb VALUES {values}")
