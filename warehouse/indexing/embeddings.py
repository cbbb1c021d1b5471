"""The semantic lane's vectors (FR-5.1), built in the build child when `semantic.enabled` is on.

Knowledge units: one vector per `episode`, `memory`, `skill` and actor document (its head, part 0:
`sql/build/vec_units.sql`), and one per passage of an episode's summary, the assistant's messages and
the tools' results (episodes lane) and of a skill's body (skills lane) (parts 1..n,
`warehouse/core/passages.py`: ~400 characters, at most PER_DOC per document and PASSAGES_PER_EPISODE
per episode, deduplicated within it), stored in the generation as
`akw_vec(lane_no, doc_id, part, pos, text_md5, vec FLOAT[512])`, sorted by lane. A document's
similarity is its best unit's (search/vector.py), and `pos` points the snippet at the passage.

Vectors are cached by the md5 of the unit text: the previous
generation (attached read-only, like the lexical index's term reuse) lends every vector of a
text it already embedded, so after one changed session only its new units are embedded. Reuse
needs the same model key (`warehouse.core.embed.model_key`), else everything is embedded again.

New vectors reach DuckDB as a Parquet file written with pyarrow (exact float32; a SQL literal of
millions of numbers would be slow to parse, and a bound parameter imports pandas into the child).
Search scans the table brute force (`array_inner_product` on unit vectors; ADR 0005).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from warehouse.core import embed, literals, passages
from warehouse.core.sqlfiles import render_build
from warehouse.indexing.previous import PREV, attach_previous


def _run(con: duckdb.DuckDBPyConnection, name: str, subs: dict[str, object] | None = None) -> list[tuple]:
    sql = render_build(name, {k: literals.value(v) for k, v in (subs or {}).items()})
    rows: list[tuple] = []
    for stmt in con.extract_statements(sql):
        try:
            res = con.execute(stmt)
            rows = res.fetchall() if res.description else []
        except duckdb.Error as e:
            e.add_note(f"akw build step: sql/build/{name}.sql")
            raise
    return rows


EMBED_BATCH = 2048  # texts embedded and written per batch: a 1M build's 138k texts never sit in memory at once
EMBED_MEMORY_LIMIT = "32MB"  # DuckDB's limit while the model embeds (see _evicted)
PASSAGES_PER_EPISODE = 48  # the cap of one episode's passages (a long session's tool output is mostly noise)
FETCH_ROWS = 4096


def cut_passages(con: duckdb.DuckDBPyConnection, path: Path) -> int:
    """Cut the episodes' and skills' passages (vec_passage_docs.sql order) into a Parquet file at `path`;
    returns how many. Texts stream in batches; an episode's passages are capped and deduplicated."""
    import hashlib

    import pyarrow as pa
    import pyarrow.parquet as pq

    cols: dict[str, list] = {"doc_id": [], "lane_no": [], "part": [], "pos": [], "unit_text": [], "text_md5": []}
    res = con.execute(render_build("vec_passage_docs", {}))
    grp, seen, kept = None, set(), 0
    while rows := res.fetchmany(FETCH_ROWS):
        for doc_id, g, text, lane_no in rows:
            if g != grp:
                grp, seen, kept = g, set(), 0
            if kept >= PASSAGES_PER_EPISODE:
                continue
            for part, (pos, piece) in enumerate(passages.passages(text), 1):
                md5 = hashlib.md5(piece.encode("utf-8")).hexdigest()
                if md5 in seen or kept >= PASSAGES_PER_EPISODE:
                    continue
                seen.add(md5)
                kept += 1
                for k, v in (("doc_id", doc_id), ("lane_no", lane_no), ("part", part), ("pos", pos),
                             ("unit_text", piece), ("text_md5", md5)):
                    cols[k].append(v)
    table = pa.table({"doc_id": pa.array(cols["doc_id"], pa.int32()), "lane_no": pa.array(cols["lane_no"], pa.uint8()),
                      "part": pa.array(cols["part"], pa.int16()),
                      "pos": pa.array(cols["pos"], pa.int32()), "unit_text": pa.array(cols["unit_text"], pa.string()),
                      "text_md5": pa.array(cols["text_md5"], pa.string())})
    pq.write_table(table, path, compression="zstd")
    return table.num_rows


def build_vectors(con: duckdb.DuckDBPyConnection, prev: Path | None, scratch: Path) -> dict[str, Any]:
    """Embed the units of `ak_document` into `akw_vec`; `scratch` is a file path for the new vectors.

    Returns what the run record and `akw status` report: units, distinct texts, how many were
    embedded now (the rest came from the previous generation), seconds and throughput.
    """
    t0 = time.perf_counter()
    key = embed.model_key()
    # The vectors are stored uncompressed: DuckDB's float compression (ALPRD) made every search decompress
    # all of them, 16 of the 24 ms a 100k scan took (uncompressed: 4 of 13), for ~25% of their size. An
    # ARRAY column takes no per-column `USING COMPRESSION`, so the rest of the build is checkpointed first
    # (compressed as ever) and the vector tables are written under `force_compression` alone.
    con.execute("CHECKPOINT")
    con.execute("SET force_compression = 'uncompressed'")
    try:
        return _build(con, prev, scratch, key, t0)
    finally:
        con.execute("CHECKPOINT")
        con.execute("RESET force_compression")


def _build(con: duckdb.DuckDBPyConnection, prev: Path | None, scratch: Path, key: str, t0: float) -> dict[str, Any]:
    _run(con, "vec_units", {"max_chars": embed.UNIT_CHARS})
    cut = scratch.with_name(scratch.name + ".passages")
    try:
        n_passages = cut_passages(con, cut)
        _run(con, "vec_passages", {"path": str(cut)})
    finally:
        cut.unlink(missing_ok=True)
    reused = attach_previous(con, prev, "akw_vec_build", key)
    if reused:
        try:
            _run(con, "vec_reuse")
        finally:
            con.execute(f"DETACH {PREV}")
    (todo,) = _run(con, "vec_todo")[0]
    load_s = embed_s = 0.0
    if todo:
        con.execute("CHECKPOINT")  # the units and the texts to embed are on disk: nothing pins the cache
        with _evicted(con):
            t_load = time.perf_counter()
            embed.encoder()  # loaded once per process (~0.8 s), timed apart from the embedding itself
            load_s = time.perf_counter() - t_load
            t_embed = time.perf_counter()
            try:
                _embed_to_parquet(con, todo, scratch)
            finally:
                embed.release()
            embed_s = time.perf_counter() - t_embed
        try:
            _run(con, "vec_load", {"path": str(scratch)})
        finally:
            scratch.unlink(missing_ok=True)
    con.execute("DROP TABLE _vec_todo")
    _run(con, "vec_final", {"key": key, "model": embed.MODEL})
    units, distinct = con.execute("SELECT count(*), count(DISTINCT text_md5) FROM akw_vec").fetchone()
    return {"model": key, "units": int(units), "passages": n_passages, "distinct_texts": int(distinct),
            "embedded": todo,
            "reused_from_previous": reused, "model_load_s": round(load_s, 3), "embed_s": round(embed_s, 3),
            "texts_per_s": round(todo / embed_s, 1) if todo and embed_s > 0 else None,
            "seconds": round(time.perf_counter() - t0, 3)}


@contextmanager
def _evicted(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """DuckDB keeps the pages the models and the lexical index read cached up to its memory limit; while
    the model embeds, DuckDB has nothing to do, so its limit drops to EMBED_MEMORY_LIMIT (which evicts
    the cache: everything is checkpointed) and the model's memory takes their place, not theirs on top."""
    (limit,) = con.execute("SELECT current_setting('memory_limit')").fetchone()
    con.execute(f"SET memory_limit = '{EMBED_MEMORY_LIMIT}'")
    try:
        yield
    finally:
        con.execute(f"SET memory_limit = '{limit}'")


def _embed_to_parquet(con: duckdb.DuckDBPyConnection, todo: int, path: Path) -> None:
    """Embed the `todo` texts of `_vec_todo` in batches of EMBED_BATCH into one Parquet file at `path`
    (exact float32): one batch of texts and vectors is held at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("text_md5", pa.string()), ("vec", pa.list_(pa.float32(), embed.DIMS))])
    with pq.ParquetWriter(path, schema, compression="zstd") as out:
        for start in range(0, todo, EMBED_BATCH):
            rows = con.execute(f"SELECT text_md5, unit_text FROM _vec_todo WHERE n >= {start} "
                               f"AND n < {start + EMBED_BATCH} ORDER BY n").fetchall()
            vectors = embed.embed_each([text for _, text in rows])
            flat = pa.array(vectors.reshape(-1), type=pa.float32())
            out.write_table(pa.table({"text_md5": pa.array([md5 for md5, _ in rows], type=pa.string()),
                                      "vec": pa.FixedSizeListArray.from_arrays(flat, embed.DIMS)}, schema=schema))
