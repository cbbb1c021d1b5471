"""Access control's statements beside the ranking: on worker threads and cursors of their own.

The hidden-hint statement (lane_runner.hidden_hits) needs only the request, the query's terms and
which lanes answer, so it starts as soon as the lanes ran and runs while fusion, the live check and
the answer are built on the search's own cursors; the search waits for it only at the end. The
places of the lane candidates (guard.prefetch, for the live check) are read the same way, and the
search waits for them just before the trim. A worker
keeps one cursor per generation, and on it the principal's bitstring variable (access.View.bits,
copied from its text: temp state is per cursor). DuckDB releases the GIL while a statement runs, so
on a machine with a spare core the hint costs the response almost nothing. Errors and timeouts are
handled by `hidden_hits` as on the search cursor (no hint, never a failed search).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import duckdb

from warehouse.search.access import View
from warehouse.sqlfiles import query_sql

T = TypeVar("T")
WORKERS = 2  # concurrent searches of one process share these; a third waits its turn


class HintWorker:
    """Runs `job(cursor)` on a worker's cursor of `con` that holds `view`'s bitstring."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._guard = threading.Lock()
        self._local = threading.local()

    def start(self, con: duckdb.DuckDBPyConnection, gen: Path, view: View,
              job: Callable[[duckdb.DuckDBPyConnection], T]) -> Future[T]:
        with self._guard:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="akw-hint")
            return self._pool.submit(self._run, con, gen, view, job)

    def _run(self, con: duckdb.DuckDBPyConnection, gen: Path, view: View,
             job: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
        loc = self._local
        if getattr(loc, "con", None) is not con or loc.gen != gen:
            with self._guard:
                loc.cur, loc.con, loc.gen, loc.bits = con.cursor(), con, gen, set()
        if view.bits not in loc.bits:
            loc.cur.execute(query_sql("access_bits_set").replace("{name}", view.bits), [view.allowed])
            loc.bits.add(view.bits)
        return job(loc.cur)
