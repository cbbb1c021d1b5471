"""The previous generation, attached read-only so a build can reuse what it already computed.

The lexical index reuses tokenized texts and the vector side reuses embeddings; both attach the
published generation as `prev` only when it was made by the same build key.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import duckdb

from warehouse.core import literals

PREV = "prev"  # the schema name the build SQL reads (sql/build/fts_sig_reuse.sql, vec_reuse.sql)


def attach_previous(con: duckdb.DuckDBPyConnection, prev: Path | None, key_table: str, key: str,
                    tables: Iterable[str] = ()) -> bool:
    """Attach `prev` as `PREV` if its `key_table.key` equals `key` and each of `tables` (`name(cols)`)
    exists with those columns; otherwise leave nothing attached and return False."""
    if prev is None or not Path(prev).exists():
        return False
    try:
        con.execute(f"ATTACH {literals.text(str(prev))} AS {PREV} (READ_ONLY)")
    except duckdb.Error:
        return False
    try:
        row = con.execute(f"SELECT key FROM {PREV}.{key_table}").fetchone()
        for table in tables:
            name, cols = table.rstrip(")").split("(", 1)
            con.execute(f"SELECT {cols} FROM {PREV}.{name} LIMIT 0")
    except duckdb.Error:
        row = None
    if row is None or row[0] != key:
        con.execute(f"DETACH {PREV}")
        return False
    return True
