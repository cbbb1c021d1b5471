"""The RU/EN lexical scheme shared by the index build and the search: tokenizer macros and BM25 constants.

Both sides must tokenize with the same `akw_*` macros (`sql/build/tokenizer.sql`) and weigh with the
same BM25 parameters, so they live here, on the ground floor, instead of one stage importing the other.
"""

from __future__ import annotations

import duckdb

from warehouse.core.sqlfiles import build_sql

BM25_K1 = 1.2
BM25_B = 0.75


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
