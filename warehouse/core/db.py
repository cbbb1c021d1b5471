"""The one way to open DuckDB: offline extensions from the `duckdb-ext-*` wheels, bounded memory.

Extensions are LOADed from the wheel's `duckdb_ext/extensions` folder; nothing is ever
INSTALLed or downloaded at run time (autoinstall/autoload are off).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

from warehouse.core import literals


def extension_directory() -> str:
    import duckdb_ext  # namespace package shipped by duckdb-ext-fts

    for base in duckdb_ext.__path__:
        d = Path(base) / "extensions"
        if d.exists():
            return str(d)
    raise RuntimeError("duckdb-ext-fts wheel is not installed (duckdb_ext/extensions missing)")


def connect(path: str | Path = ":memory:", read_only: bool = False, memory_limit: str = "1GB",
            threads: int = 2, extensions: tuple[str, ...] = ("fts",),
            temp_directory: str | None = None) -> duckdb.DuckDBPyConnection:
    config: dict[str, str | int | bool] = {
        "extension_directory": extension_directory(),
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        # DuckDB checks an extension's signature on every LOAD of every new database: ~2 ms per MB, so
        # 49 ms per process for fts and ~0.2 s for ducklake + postgres (13% of the test suite's CPU).
        # The files are the pinned wheels' own, in this environment's site-packages, as trusted as
        # `_duckdb.so` beside them, which nothing verifies either; no other file can be loaded: LOAD takes
        # a name resolved in that folder, readers switch external access off once loaded (which refuses
        # any LOAD), and `akw sql` runs only read-only statements (ADR 0002, "Extensions").
        "allow_unsigned_extensions": True,
        "memory_limit": memory_limit,
        "threads": threads,
        # DuckDB 1.4 caches the bytes of every Parquet file it reads, inside the memory limit: a build reads
        # the lake's thousands of small files once, and at 1M events the cache took 278 MB of a 300 MB limit
        # right at the first model (RSS 106 -> 684 MB), leaving the operators to spill (issue 27)
        "enable_external_file_cache": False,
    }
    if temp_directory is not None:
        config["temp_directory"] = temp_directory
    con = duckdb.connect(str(path), read_only=read_only, config=config)
    for ext in extensions:
        con.execute(f"LOAD {ext}")
    return con


def run(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[object] = ()) -> duckdb.DuckDBPyConnection:
    """`con.execute(sql, params)` with the parameters written as SQL literals (core/literals.py).

    Binding any Python value makes the DuckDB client import pandas when it is installed: ~0.25 s
    and ~85 MB in a process that never needed it (every `akw get`, `dispatch`, `forget` paid it).
    The statement is prepared under one name per connection and executed with literal arguments,
    so `?` placeholders keep their meaning and a value can never be SQL."""
    if not params:
        return con.execute(sql)
    con.execute(f"PREPARE akw_run AS {sql}")
    return con.execute(f"EXECUTE akw_run({', '.join(literals.param(p) for p in params)})")


def rows(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[object] = ()) -> list[dict[str, Any]]:
    """Every row of `sql` (parameters as in `run`) as a dict by column name."""
    cur = run(con, sql, params)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def remove_files(path: Path) -> None:
    """A database file and what DuckDB writes beside it: its WAL and its spill folder."""
    import shutil

    path.unlink(missing_ok=True)
    Path(f"{path}.wal").unlink(missing_ok=True)
    shutil.rmtree(f"{path}.tmp", ignore_errors=True)
