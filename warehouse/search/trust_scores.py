"""The trust prior a search engine ranks with, as a trust per document: read from disk once, not per search.

`ak_trust` (warehouse/home/trust.py, written by the curation pass of reindex) holds one score per entity;
the engine re-reads it only when a stat (at most once per `CHECK_S`) shows a new file, or after
`invalidate()` (a new generation), and maps the non-neutral entities to document ids with one
statement over `ak_document` (sql/queries/search/trust_docs.sql). Fusion then reads each hit's trust from
the hits literal and joins nothing (fuse.sql `$17`); a document without a score is neutral (0.5),
whose prior is exactly 1.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Hashable, Mapping

from warehouse.core.paths import Paths
from warehouse.home import trust
from warehouse.search.doc_scores import DocScores


class TrustScores(DocScores):
    QUERY = "trust_docs"
    REV_PREFIX = "tr-"

    def __init__(self, paths: Paths | None) -> None:
        super().__init__()
        self.paths = paths

    def enabled(self) -> bool:
        return self.paths is not None

    def signature(self) -> Hashable | None:
        return trust.signature(self.paths) if self.paths is not None else None

    def scores(self) -> Mapping[str, float]:  # trust in [0, 1] per entity; absent: 0.5
        assert self.paths is not None
        try:
            return {e: float(r[2]) for e, r in trust.read(self.paths, non_neutral=True).items()}
        except sqlite3.Error:  # unreadable: rank neutrally rather than fail a search
            return {}
