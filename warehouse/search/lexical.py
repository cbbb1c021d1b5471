"""RU/EN lexical index over `ak_document`: a BM25 impact table that DuckDB's zone maps can skip.

Why not `match_bm25` of the fts extension: it scans the whole index per query (hundreds of ms
at 1M documents), its default `ignore` regex drops digits (IPs, ports) and it stems with porter
only. Here BM25 term weights are precomputed per lane into `fts_postings`, sorted by
(lane, term_id, doc_id). A query is tokenized by the same SQL macro as the documents (the query
is a bound parameter), its terms are looked up in `fts_vocab` (step 1), and the impacts are
summed with a literal `term_id IN (...)` list of integers (step 2), which keeps row-group skipping.

All SQL lives in `sql/index/*.sql`; only integers from step 1, '?' placeholders and the
caller's trusted `where_sql` are ever placed into SQL text.
"""

from __future__ import annotations

import time
from functools import cache
from pathlib import Path

import duckdb

SQL_DIR = Path(__file__).resolve().parents[2] / "sql" / "index"

BM25_K1 = 1.2
BM25_B = 0.75
IDENT_BOOST = 2  # FR-5.8: an exact identifier term (IP, host, path, skill name) weighs double
IMPACT_SCALE = 1000  # impacts are stored as integer milli-units of BM25
MAX_QUERY_CHARS = 2000  # contract 000: a query is 1..2000 characters
MAX_QUERY_TERMS = 64  # one bit per term in `matched`; longer queries keep their rarest terms

INDEX_TABLES = ("fts_vocab", "fts_lane_stats", "fts_postings")
_STAGING = ("fts_chunkmap", "fts_termdict", "fts_doc_terms", "fts_tidmap", "fts_doc_len", "fts_lane_df",
            "fts_chunk", "fts_newchunk")
_FINAL_STEPS = ("fts_tidmap", "fts_vocab", "fts_doc_len", "fts_lane_stats", "fts_lane_df", "fts_postings")


@cache
def _sql(name: str) -> str:
    return (SQL_DIR / f"{name}.sql").read_text(encoding="utf-8")


def _run(con: duckdb.DuckDBPyConnection, name: str, params: dict[str, object] | None = None) -> float:
    """Run every statement of sql/index/<name>.sql (named $params go where used); return seconds."""
    t0 = time.perf_counter()
    for stmt in con.extract_statements(_sql(name)):
        used = {k: v for k, v in (params or {}).items() if f"${k}" in stmt.query}
        con.execute(stmt, used) if used else con.execute(stmt)
    return time.perf_counter() - t0


def install_tokenizer(con: duckdb.DuckDBPyConnection, *, temp: bool = False) -> None:
    """Define the akw_* tokenizer macros.

    The build stores them in the database, so a published generation carries the tokenizer it
    was indexed with; `temp=True` defines them for this connection only (read-only readers).
    """
    sql = _sql("tokenizer")
    if temp:
        sql = sql.replace("CREATE OR REPLACE MACRO", "CREATE OR REPLACE TEMP MACRO")
    for stmt in con.extract_statements(sql):
        con.execute(stmt)


def build_lexical_index(con: duckdb.DuckDBPyConnection, *, chunk_docs: int = 200_000) -> dict:
    """Build fts_vocab, fts_lane_stats and fts_postings from ak_document; return build stats.

    Documents are tokenized in doc_id slices of `chunk_docs` into integer (doc_id, term, tf)
    rows, so memory does not grow with the text; the one big step is the final sorted
    CREATE TABLE AS, which DuckDB spills to disk under its memory_limit.
    """
    if chunk_docs < 1:
        raise ValueError("chunk_docs must be positive")
    t0 = time.perf_counter()
    keep_order = con.execute("SELECT current_setting('preserve_insertion_order')").fetchone()[0]
    con.execute("SET preserve_insertion_order = true")  # the sorted inserts ARE the physical order
    try:
        steps, slices = _build(con, chunk_docs)
    finally:
        if not keep_order:
            con.execute("SET preserve_insertion_order = false")
    lanes = {
        lane: {"docs": n, "avgdl": round(avgdl, 3)}
        for lane, n, avgdl in con.execute("SELECT lane, n_docs, avgdl FROM fts_lane_stats ORDER BY lane").fetchall()
    }
    return {
        "docs": sum(v["docs"] for v in lanes.values()),
        "terms": con.execute("SELECT count(*) FROM fts_vocab").fetchone()[0],
        "postings": con.execute("SELECT count(*) FROM fts_postings").fetchone()[0],
        "lanes": lanes,
        "slices": slices,
        "step_seconds": {k: round(v, 3) for k, v in steps.items()},
        "seconds": round(time.perf_counter() - t0, 3),
    }


def _build(con: duckdb.DuckDBPyConnection, chunk_docs: int) -> tuple[dict[str, float], int]:
    install_tokenizer(con)
    lo, hi = con.execute("SELECT coalesce(min(doc_id), 0), coalesce(max(doc_id), -1) FROM ak_document").fetchone()
    steps = {"fts_staging": _run(con, "fts_staging"), "fts_staging_slice": 0.0}
    slices = 0
    for start in range(lo, hi + 1, chunk_docs):
        steps["fts_staging_slice"] += _run(con, "fts_staging_slice", {"lo": start, "hi": start + chunk_docs})
        slices += 1
    for name in _FINAL_STEPS:
        steps[name] = _run(con, name)
    steps["fts_postings_lane"] = 0.0
    for lane, lane_no, n_docs, avgdl, lo_id, hi_id in con.execute(
        "SELECT lane, lane_no, n_docs, avgdl, min_doc_id, max_doc_id FROM fts_lane_stats ORDER BY lane_no"
    ).fetchall():
        steps["fts_postings_lane"] += _run(con, "fts_postings_lane", {
            "lane": lane, "lane_no": lane_no, "n_docs": n_docs, "avgdl": avgdl, "lo": lo_id, "hi": hi_id,
            "k1": BM25_K1, "b": BM25_B})
    for name in _STAGING:
        con.execute(f"DROP TABLE IF EXISTS {name}")
    return steps, slices


def _vocab_lookup(con: duckdb.DuckDBPyConnection, query: str) -> list[tuple[str, int, int]]:
    """(term, term_id, df) of the query's distinct terms that the vocabulary knows, by term_id."""
    if not query or not query.strip():
        return []
    args = {"query": query[:MAX_QUERY_CHARS]}
    try:
        terms = con.execute(_sql("query_tokens"), args).fetchone()[0]
    except duckdb.CatalogException:  # a database whose builder did not store the macros
        install_tokenizer(con, temp=True)
        terms = con.execute(_sql("query_tokens"), args).fetchone()[0]
    if not terms:
        return []
    sql = _sql("query_vocab").replace("{placeholders}", ", ".join("?" * len(terms)))
    return [(t, int(i), int(df)) for t, i, df in con.execute(sql, terms).fetchall()]


def query_terms(con: duckdb.DuckDBPyConnection, query: str) -> list[tuple[str, int, bool]]:
    """Terms of `query` found in the vocabulary: (term, term_id, is_identifier), by term_id.

    The query is a literal: quotes, OR, *, SQL in it are just text to tokenize.
    """
    return [(t, i, t.startswith("=")) for t, i, _ in _vocab_lookup(con, query)]


def lexical_search(
    con: duckdb.DuckDBPyConnection,
    lane: str,
    query: str,
    k: int = 30,
    where_sql: str = "",
    params: list | None = None,
) -> list[tuple[int, float, list[str]]]:
    """Top-k documents of one lane by BM25: (doc_id, score, matched terms), score desc, doc_id asc.

    `where_sql` is a trusted predicate on ak_document alias `d` with positional `?` params
    (`params`); it is applied before the limit.
    """
    k = int(k)
    found = _vocab_lookup(con, query)
    if not found or k <= 0:
        return []
    if len(found) > MAX_QUERY_TERMS:  # keep the most selective terms, deterministically
        found = sorted(sorted(found, key=lambda r: (r[2], r[1]))[:MAX_QUERY_TERMS], key=lambda r: r[1])
    ids = [tid for _, tid, _ in found]
    ident_ids = [tid for term, tid, _ in found if term.startswith("=")] or [-1]
    sql = _sql("lexical_search_filtered" if where_sql.strip() else "lexical_search")
    sql = (
        sql.replace("{term_ids}", ",".join(map(str, ids)))
        .replace("{ident_ids}", ",".join(map(str, ident_ids)))
        .replace("{term_bits}", " ".join(f"WHEN {tid} THEN {1 << n}::UBIGINT" for n, tid in enumerate(ids)))
        .replace("{ident_boost}", str(IDENT_BOOST))
        .replace("{k}", str(k))
        .replace("{where_sql}", where_sql)  # last: trusted text is never re-scanned for placeholders
    )
    rows = con.execute(sql, [lane, *(params or [])]).fetchall()
    terms = [term for term, _, _ in found]
    return [
        (int(doc_id), int(score) / IMPACT_SCALE, [t for n, t in enumerate(terms) if int(bits) >> n & 1])
        for doc_id, score, bits in rows
    ]
