"""The unit vectors of the open generation in memory, quantized to int8: the vector side's scan in ~2 ms.

DuckDB's brute-force scan (`sql/queries/search/vector_lane.sql`) reads every FLOAT[512] of the lane from its
buffer pool and takes 10-12 ms for the ~17k units of the 100k-event bench (3.5 ms of it only reading the
arrays), the longest step of a semantic search. Here each unit vector is kept as 512 signed bytes and one
scale (its largest component / 127): 8.7 MB instead of 35 MB at 100k, and the similarity of every unit is
int8 → float32 chunks times the query vector, ~1.5 ms on one core. The quantization moves a similarity by at
most ~0.001 (0.0008 measured on the bench's vectors); `akw eval` answered all 674 queries as with the SQL scan.

The matrix is read once per generation and process, in batches (no float copy of the whole table is ever
held), at its first vector scan: 0.19 s at 100k events, 1.7 s at 1M (~167k units, 82 MB). Which scan answers
depends only on the generation (its size against `MAX_BYTES`), so the same request gets the same bytes in
every process. A generation beyond MAX_BYTES keeps the SQL scan. At 1M the in-memory scan is what keeps a
semantic search interactive: DuckDB's scan reads 342 MB of FLOAT[512] through the reader's 100 MB buffer pool
on every search (215 ms median, against ~20 ms here).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

if TYPE_CHECKING:  # numpy comes with the [semantic] extra: imported where vectors are used, never at import
    import numpy as np

DIMS = 512
MAX_BYTES = 96 * 2**20  # int8 bytes held at most: ~196k units (the 100k bench has ~17k, the 1M one ~167k)
_BATCH = 2048  # rows read (and quantized) per statement at load time: 4 MB of floats
_CHUNK = 512  # rows converted to float32 per product: stays in the CPU cache


@dataclass(frozen=True)
class LaneVectors:
    """One lane's units, sorted by document: rows `starts[g]`..`ends[g]` are the g-th document `docs[g]`'s."""

    q8: np.ndarray  # (n, DIMS) int8
    scale: np.ndarray  # (n,) float32
    pos: np.ndarray  # (n,) int32: the unit's offset in its document (0: the head)
    docs: np.ndarray  # (g,) int64: each document once, ascending
    starts: np.ndarray  # (g,) int64
    ends: np.ndarray  # (g,) int64: one past each document's last row
    group: np.ndarray  # (n,) int64: each row's document index

    def similarities(self, qvec: np.ndarray) -> np.ndarray:
        """Every unit's similarity to `qvec` from its int8 copy (float32)."""
        import numpy as np

        out = np.empty(len(self.q8), np.float32)
        for i in range(0, len(self.q8), _CHUNK):
            out[i:i + _CHUNK] = self.q8[i:i + _CHUNK].astype(np.float32) @ qvec
        return out * self.scale

    def top(self, qvec: np.ndarray, k: int, allowed: np.ndarray | None = None) -> list[tuple[int, float, int]]:
        """The `k` best documents as (doc_id, similarity of its best unit, that unit's pos), best first, ties
        by doc_id, a document's equally similar units by pos (the SQL scan's order, vector_lane.sql);
        `allowed`: the doc_ids the lane's filters let through."""
        import numpy as np

        if not len(self.q8) or k <= 0:
            return []
        sims = self.similarities(qvec)
        if allowed is not None:
            sims[~np.isin(self.docs, allowed)[self.group]] = -np.inf
        best = np.maximum.reduceat(sims, self.starts)
        live = np.flatnonzero(best > -np.inf)
        if len(live) > k:
            kth = np.partition(best[live], len(live) - k)[len(live) - k]
            live = live[best[live] >= kth]
        order = live[np.lexsort((self.docs[live], -best[live]))][:k]
        out = []
        for g in order.tolist():
            rows = slice(int(self.starts[g]), int(self.ends[g]))
            out.append((int(self.docs[g]), float(best[g]), int(self.pos[rows][sims[rows] == best[g]].min())))
        return out


class VectorMatrix:
    """The lanes' vectors of one generation, loaded at its first vector scan (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lanes: dict[int, LaneVectors] | None = None
        self._unavailable = False

    def lanes(self, cur: duckdb.DuckDBPyConnection) -> dict[int, LaneVectors] | None:
        """The loaded lanes (read through `cur` when first needed); None when the generation has more units
        than MAX_BYTES allows or no vector table (the caller keeps the SQL scan)."""
        with self._lock:
            if self._lanes is None and not self._unavailable:
                self._lanes = _load(cur)
                self._unavailable = self._lanes is None
            return self._lanes


def _load(cur: duckdb.DuckDBPyConnection) -> dict[int, LaneVectors] | None:
    import numpy as np

    try:
        n, dims, last = cur.execute("SELECT count(*), max(len(vec)), max(rowid) FROM akw_vec").fetchone()
    except duckdb.CatalogException:
        return None
    if not n or dims != DIMS or n * DIMS > MAX_BYTES:
        return None
    lane = np.empty(n, np.int16)
    doc = np.empty(n, np.int64)
    pos = np.empty(n, np.int32)
    scale = np.empty(n, np.float32)
    q8 = np.empty((n, DIMS), np.int8)
    at = 0
    for start in range(0, int(last) + 1, _BATCH):
        got = cur.execute("SELECT lane_no, doc_id, coalesce(pos, 0) AS pos, vec FROM akw_vec "
                          f"WHERE rowid >= {start} AND rowid < {start + _BATCH} ORDER BY rowid").fetchnumpy()
        m = len(got["doc_id"])
        if not m:
            continue
        vecs = np.stack(got["vec"]).astype(np.float32, copy=False)
        del got["vec"]
        s = np.abs(vecs).max(axis=1) / np.float32(127.0)
        s[s == 0] = 1.0
        vecs /= s[:, None]  # in place: a batch holds one float copy of its vectors at a time
        np.rint(vecs, out=vecs)
        q8[at:at + m] = vecs
        lane[at:at + m], doc[at:at + m], pos[at:at + m], scale[at:at + m] = got["lane_no"], got["doc_id"], \
            got["pos"], s
        at += m
    out: dict[int, LaneVectors] = {}
    for lane_no in np.unique(lane[:at]).tolist():
        rows = np.flatnonzero(lane[:at] == lane_no)
        rows = rows[np.argsort(doc[rows], kind="stable")]
        if rows[-1] - rows[0] + 1 == len(rows) and bool(np.all(np.diff(rows) == 1)):
            rows = slice(int(rows[0]), int(rows[-1]) + 1)  # akw_vec is sorted by (lane_no, doc_id): views, no copy
        d = doc[rows]
        change = np.r_[False, d[1:] != d[:-1]]  # a row that starts another document
        starts = np.flatnonzero(np.r_[True, change[1:]])
        out[int(lane_no)] = LaneVectors(q8[rows], scale[rows], pos[rows], d[starts], starts,
                                        np.r_[starts[1:], len(d)], np.cumsum(change))
    return out
