"""Statements beside the lexical lanes and the ranking: on worker threads and cursors of their own.

DuckDB releases the GIL while a statement runs, so on a machine with a spare core a statement that
does not need the lanes' or fusion's results costs the response almost nothing:
- the vector side (semantic.enabled, vector.run_vectors: embed the query, scan the unit vectors)
  needs only the request, so it starts before the lexical lanes and runs beside them;
- the lexical lanes but the first (lane_runner.run_lanes) run beside the first one;
- the hidden-hint statement (lane_runner.hidden_hits) needs the query's terms and which lanes
  answer, so it starts as soon as the lanes ran and runs while fusion, the live check and the
  answer are built; the search waits for it only at the end;
- the places of the lane candidates (guard.prefetch, for the live check) are read the same way, and
  the search waits for them just before the trim.
A worker keeps one cursor per generation, and on it the principal's bitstring variable
(access.View.bits, copied from its text: temp state is per cursor). Errors and timeouts are handled
by each job as on the search cursor (no hint, no vector side: never a failed search); a binder or
catalog error (a generation of another version) reaches the search through `Future.result`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import duckdb

from warehouse.core.sqlfiles import render
from warehouse.search.access import View

T = TypeVar("T")
WORKERS = 2  # the vector side and the other lanes at once; concurrent searches share them, a third job waits


class SideWorker:
    """Runs `job(cursor)` on a worker's cursor of `con` that holds `view`'s bitstring (if any)."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._guard = threading.Lock()
        self._local = threading.local()

    def start(self, con: duckdb.DuckDBPyConnection, gen: Path, view: View | None,
              job: Callable[[duckdb.DuckDBPyConnection], T]) -> Future[T]:
        with self._guard:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="akw-side")
            return self._pool.submit(self._run, con, gen, view, job)

    def close(self) -> None:
        """Let the worker threads end (the engine closed); a later `start` makes a new pool."""
        with self._guard:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def _run(self, con: duckdb.DuckDBPyConnection, gen: Path, view: View | None,
             job: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
        loc = self._local
        if getattr(loc, "con", None) is not con or loc.gen != gen:
            with self._guard:
                loc.cur, loc.con, loc.gen, loc.bits = con.cursor(), con, gen, set()
        if view is not None and view.bits not in loc.bits:
            loc.cur.execute(render("access_bits_set", name=view.bits), [view.allowed])
            loc.bits.add(view.bits)
        return job(loc.cur)
