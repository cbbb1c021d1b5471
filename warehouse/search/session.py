"""What a search session cursor holds: small temp tables and the statements prepared on them once.

DuckDB's fixed costs per statement (planning, binding) outweigh the work on a few hundred
rows, so the query tokenizer, fusion, slot and actor statements are prepared once per session
cursor and only `EXECUTE`d per search (ADR 0003 "Serving"). The engine owns the cursor's
lifecycle (one per thread, made anew every `SESSION_USES` searches); this module only says
what a fresh one must contain.
"""

from __future__ import annotations

import duckdb

from warehouse.core.sqlfiles import query_sql
from warehouse.search import lexical


def prepare_session(cur: duckdb.DuckDBPyConnection, semantic: bool = False) -> duckdb.DuckDBPyConnection:
    """Input tables and prepared fusion/slots/actors statements on a fresh cursor (planned once).

    The plans are made while the input tables are empty and reused for every search, so the
    optimizer must not fold in what the tables' statistics say at planning time (it would prune
    scans of "empty" tables): statistics propagation is off for this cursor.

    Every table of the session is created before any statement is prepared: a temp table created
    after a PREPARE changes the cursor's catalog, and DuckDB then plans that statement again on
    every EXECUTE (the semantic session's `_vec` table did this to slots and actors: 0.4 and 0.9 ms
    of optimizers per call, ~5 ms of a search at 100k; tests/test_prepared_statements.py).
    """
    cur.execute("SET disabled_optimizers = 'statistics_propagation'")
    lexical.with_tokenizer(cur, "SELECT akw_terms('')")  # temp macros if the builder did not store them
    for stmt in cur.extract_statements(query_sql("session")):
        cur.execute(stmt)
    for name in ("fuse", "slots"):
        cur.execute(query_sql(name))
    cur.execute("PREPARE akw_actors AS\n" + query_sql("actors"))
    if semantic:  # the fusion that ranks by meaning too (search/vector.py: the hits carry their similarity)
        cur.execute(query_sql("fuse_semantic"))
    return cur

