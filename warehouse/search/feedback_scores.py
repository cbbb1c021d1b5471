"""The feedback a search engine ranks with, as a score per document: read from disk once, not per search.

The engine asks `refresh()` on every search; the log is re-read only when a stat (at most once per
`CHECK_S`) shows it changed, or at once after `invalidate()` (a feedback call in this process, a
new generation). The scores per result id are mapped to document ids by one statement over
`ak_document` (sql/queries/search/feedback_docs.sql), so fusion reads each hit's score from the hits
literal and joins nothing (fuse.sql `$16`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from pathlib import Path

from warehouse.home import feedback
from warehouse.search.doc_scores import DocScores


class FeedbackScores(DocScores):
    QUERY = "feedback_docs"
    REV_PREFIX = "fb-"

    def __init__(self, log_file: Path | None) -> None:
        super().__init__()
        self.log_file = log_file

    def enabled(self) -> bool:
        return self.log_file is not None

    def signature(self) -> Hashable | None:
        return feedback.signature(self.log_file) if self.log_file is not None else None

    def scores(self) -> Mapping[str, float]:  # score in [-1, 1] per result id
        assert self.log_file is not None
        return {feedback.fusion_key(k): v for k, v in feedback.scores(feedback.read_log(self.log_file)).items()}
