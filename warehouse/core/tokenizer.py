"""The RU/EN lexical scheme shared by the index build and the search: tokenizer macros and BM25 constants.

Both sides must tokenize with the same `akw_*` macros (`sql/build/tokenizer.sql`) and weigh with the
same BM25 parameters, so they live here, on the ground floor, instead of one stage importing the other.
"""

from __future__ import annotations

import re

import duckdb

from warehouse.core.sqlfiles import build_sql, query_sql

BM25_K1 = 1.2
BM25_B = 0.75
# An index whose term postings are under this share Cyrillic holds (almost) no Russian text: a Russian question
# about its work shares no words with it (search/match.py judges it by meaning; status says so with semantic off)
CYRILLIC_INDEX_SHARE = 0.02
CYRILLIC = re.compile("[\u0400-\u04ff]")  # a Cyrillic letter: a term or word written (partly) in Russian


def install_tokenizer(con: duckdb.DuckDBPyConnection, *, temp: bool = False) -> None:
    """Define the akw_* tokenizer macros.

    The build stores them in the database, so a published generation carries the tokenizer it
    was indexed with; `temp=True` defines them for this connection only (read-only readers).
    """
    sql = build_sql("tokenizer")
    if temp:
        sql = sql.replace("CREATE OR REPLACE MACRO", "CREATE OR REPLACE TEMP MACRO")
    for stmt in con.extract_statements(sql):
        con.execute(stmt)


def cyrillic_share(con: duckdb.DuckDBPyConnection) -> float:
    """The share of an index's term postings written in Cyrillic (sql/queries/search/vocab_scripts.sql)."""
    return float(con.execute(query_sql("vocab_scripts")).fetchone()[0] or 0.0)
