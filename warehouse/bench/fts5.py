"""Side-by-side baseline: the same `ak_document` texts and queries in SQLite FTS5 with bm25().

FTS5 gets `tokenize='unicode61 remove_diacritics 2'` and each query as its whitespace words,
quoted and OR-ed (a literal, like ours). Compared per lane with our `lexical_search`:
latency (P50/P95 and ours/FTS5 ratios) and top-k overlap = |ours ∩ fts5| / max(|ours|, |fts5|)
over (query, lane) pairs where either side returned something; both-empty pairs are counted apart.
"""

from __future__ import annotations

import sqlite3
import statistics
import time
from pathlib import Path
from typing import Any

from warehouse.bench.stats import percentiles
from warehouse.home import generation
from warehouse.search.lexical import lexical_search

LANES = ("episodes", "code", "skills")
_STRIP = ".,;:!?()[]{}«»\"'“”—–…"


def fts5_query(text: str) -> str:
    """Whitespace words, edge punctuation trimmed, each a quoted FTS5 string, OR-ed ('' if none)."""
    words = [w.strip(_STRIP) for w in text.split()]
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words if w)


def build_fts5(con: Any, path: Path) -> float:
    """Copy (doc_id, lane, title, text, ident_text) into a fresh FTS5 table; return seconds."""
    path.unlink(missing_ok=True)
    t0 = time.perf_counter()
    lite = sqlite3.connect(path)
    lite.execute("CREATE VIRTUAL TABLE d USING fts5(lane UNINDEXED, title, text, ident_text, "
                 "tokenize='unicode61 remove_diacritics 2')")
    cur = con.execute("SELECT doc_id, lane, title, text, ident_text FROM ak_document ORDER BY doc_id")
    while batch := cur.fetchmany(20_000):
        lite.executemany("INSERT INTO d(rowid, lane, title, text, ident_text) VALUES (?, ?, ?, ?, ?)", batch)
    lite.commit()
    lite.close()
    return time.perf_counter() - t0


def compare(generations: Path, sqlite_path: Path, queries: list[str], k: int = 10) -> dict[str, Any]:
    con, gen = generation.open_current(generations)
    try:
        build_s = build_fts5(con, sqlite_path)
        lite = sqlite3.connect(sqlite_path)
        sql = "SELECT rowid FROM d WHERE d MATCH ? AND lane = ? ORDER BY bm25(d), rowid LIMIT ?"
        for q in queries[:10]:  # warm both sides
            for lane in LANES:
                lexical_search(con, lane, q, k)
                if fts5_query(q):
                    lite.execute(sql, (fts5_query(q), lane, k)).fetchall()
        ours_ms, fts_ms, overlaps, both_empty, fts_errors = [], [], [], 0, 0
        for q in queries:
            fq = fts5_query(q)
            for lane in LANES:
                t0 = time.perf_counter()
                mine = [d for d, _, _ in lexical_search(con, lane, q, k)]
                ours_ms.append((time.perf_counter() - t0) * 1000)
                theirs: list[int] = []
                t0 = time.perf_counter()
                try:
                    theirs = [r[0] for r in lite.execute(sql, (fq, lane, k)).fetchall()] if fq else []
                except sqlite3.OperationalError:
                    fts_errors += 1
                fts_ms.append((time.perf_counter() - t0) * 1000)
                if mine or theirs:
                    overlaps.append(len(set(mine) & set(theirs)) / max(len(mine), len(theirs)))
                else:
                    both_empty += 1
        lite.close()
    finally:
        con.close()
    ours, theirs_p = percentiles(ours_ms), percentiles(fts_ms)
    return {
        "index_rev": gen.index_rev, "k": k, "queries": len(queries), "lanes": list(LANES),
        "docs": _count(sqlite_path), "fts5_build_s": round(build_s, 3),
        "fts5_db_bytes": sqlite_path.stat().st_size, "ours_lexical": ours, "fts5_bm25": theirs_p,
        "ratio_p50_ours_over_fts5": round(ours["p50_ms"] / max(theirs_p["p50_ms"], 1e-6), 2),
        "ratio_p95_ours_over_fts5": round(ours["p95_ms"] / max(theirs_p["p95_ms"], 1e-6), 2),
        "overlap_at_k_mean": round(statistics.fmean(overlaps), 4) if overlaps else None,
        "pairs_compared": len(overlaps), "pairs_both_empty": both_empty, "fts5_query_errors": fts_errors,
    }


def _count(path: Path) -> int:
    lite = sqlite3.connect(path)
    try:
        return int(lite.execute("SELECT count(*) FROM d").fetchone()[0])
    finally:
        lite.close()
