"""Build the lexical index in the build child, tokenizing each distinct text once, across builds too.

Why not `warehouse.search.lexical.build_lexical_index`: it runs the regex tokenizer and the
chunk → term join over every document of every build. Here a document's tokenizer input
(`title text ident_text`) is hashed (md5); the term counts of a distinct text are computed once
per build (100k generated documents hold ~25k distinct texts) and are stored in the generation
(`fts_text_terms`, `fts_doc_sig`), so the next build reuses every text the previous generation already held:
after one changed session only its new texts are tokenized. The result is the same as a full
tokenization (same `fts_vocab`, `fts_postings`, `fts_lane_stats`, `fts_lane_terms`):
provisional term ids are re-ranked by term in `fts_tidmap`, exactly as in the original build.

Reuse needs the previous generation to be built by the same index SQL, DuckDB and fts
extension (`fts_build.key`); otherwise everything is tokenized. No parameters are bound:
DuckDB's Python binding imports pandas/pyarrow on the first bound parameter (~85 MB of the
child's RSS), so the few integers and the lane name are written into the SQL as literals.
"""

from __future__ import annotations

import hashlib
import time
from functools import cache
from pathlib import Path

import duckdb

from warehouse.core import literals
from warehouse.core.sqlfiles import BUILD, files_digest, render_build
from warehouse.core.tokenizer import BM25_B, BM25_K1, install_tokenizer
from warehouse.indexing.previous import PREV, attach_previous

_FINAL_STEPS = ("fts_tidmap", "fts_vocab", "fts_doc_len", "fts_lane_stats", "fts_lane_df", "fts_postings")
_STAGING = ("fts_chunkmap", "fts_termdict", "fts_text", "fts_text_tid", "fts_sig_new", "fts_doc_terms",
            "fts_tidmap", "fts_doc_len", "fts_lane_df", "fts_chunk", "fts_newchunk")

def build_key(con: duckdb.DuckDBPyConnection) -> str:
    """What stored term counts depend on: the index SQL (tokenizer included), DuckDB and its fts
    extension (the Snowball stemmers)."""
    fts = con.execute("SELECT extension_version FROM duckdb_extensions() WHERE extension_name = 'fts'").fetchone()
    return _key(duckdb.__version__, str(fts[0] if fts else None))


@cache
def _key(duckdb_version: str, fts_version: str) -> str:
    h = hashlib.sha256(f"{duckdb_version}/{fts_version}".encode())
    h.update(files_digest(BUILD))
    return h.hexdigest()[:32]


def _run(con: duckdb.DuckDBPyConnection, name: str, subs: dict[str, object] | None = None) -> float:
    """Run every statement of sql/build/<name>.sql with `$name` replaced by literals; return seconds."""
    t0 = time.perf_counter()
    sql = render_build(name, {k: literals.value(v) for k, v in (subs or {}).items()})
    for stmt in con.extract_statements(sql):
        try:
            con.execute(stmt)
        except duckdb.Error as e:
            e.add_note(f"akw build step: sql/build/{name}.sql")
            raise
    return time.perf_counter() - t0


def build_lexical_index(con: duckdb.DuckDBPyConnection, prev: Path | None = None, *,
                        chunk_docs: int = 200_000) -> dict:
    """Build fts_vocab, fts_lane_stats, fts_postings, fts_lane_terms (+ fts_doc_sig, fts_text_terms,
    fts_build for the next build) from ak_document; return stats like the original builder."""
    if chunk_docs < 1:
        raise ValueError("chunk_docs must be positive")
    t0 = time.perf_counter()
    keep_order = con.execute("SELECT current_setting('preserve_insertion_order')").fetchone()[0]
    con.execute("SET preserve_insertion_order = true")  # the sorted inserts ARE the physical order
    try:
        steps, slices, reused = _build(con, prev, chunk_docs)
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
        "texts": reused,
        "step_seconds": {k: round(v, 3) for k, v in steps.items()},
        "seconds": round(time.perf_counter() - t0, 3),
    }


def _build(con: duckdb.DuckDBPyConnection, prev: Path | None,
           chunk_docs: int) -> tuple[dict[str, float], int, dict[str, int | bool]]:
    install_tokenizer(con)
    steps = {"fts_sig": _run(con, "fts_sig")}
    attached = attach_previous(con, prev, "fts_build", build_key(con),
                               ("fts_text_terms(text_id, term_id, tf)", "fts_doc_sig(doc_id, sig)"))
    if attached:
        steps["fts_sig_reuse"] = _run(con, "fts_sig_reuse")
        con.execute(f"DETACH {PREV}")
    steps["fts_sig_new"] = _run(con, "fts_sig_new")
    n_new, lo, hi = con.execute("SELECT count(*), coalesce(min(doc_id), 0), coalesce(max(doc_id), -1) "
                                "FROM fts_sig_new").fetchone()
    steps["fts_sig_slice"] = 0.0
    slices = 0
    for start in range(lo, hi + 1, chunk_docs):
        steps["fts_sig_slice"] += _run(con, "fts_sig_slice", {"lo": start, "hi": start + chunk_docs})
        slices += 1
    steps["fts_sig_doc_terms"] = _run(con, "fts_sig_doc_terms")
    for name in _FINAL_STEPS:
        steps[name] = _run(con, name)
    steps["fts_postings_lane"] = 0.0
    for lane, lane_no, lo_id, hi_id in con.execute(
        "SELECT lane, lane_no, min_doc_id, max_doc_id FROM fts_lane_stats ORDER BY lane_no"
    ).fetchall():
        steps["fts_postings_lane"] += _run(con, "fts_postings_stats", {
            "lane": lane, "lane_no": int(lane_no), "lo": lo_id, "hi": hi_id, "k1": BM25_K1, "b": BM25_B})
    steps["fts_lane_terms"] = _run(con, "fts_lane_terms")
    steps["fts_text_terms"] = _run(con, "fts_text_terms")
    con.execute(f"CREATE OR REPLACE TABLE fts_build AS SELECT {literals.text(build_key(con))} AS key")
    n_sigs = con.execute("SELECT count(*) FROM fts_text").fetchone()[0]
    for name in _STAGING:
        con.execute(f"DROP TABLE IF EXISTS {name}")
    return steps, slices, {"distinct": int(n_sigs), "tokenized": int(n_new), "reused_from_previous": attached}
