"""A process that runs many commands (a notebook kernel, the MCP server, the scheduler, a test worker)
keeps nothing of the ones that finished: each in-process `akw` run closes its warehouse, whose search
engine ends its connection (the session tables of its searches) and its threads.

Before, a dropped engine waited for Python's cyclic GC: with the GC not running, the twelfth in-process
search failed with DuckDB's Out of Memory (the reader's 100 MB filled with earlier searches' tables).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_run import run
from homes import BuiltHome

from warehouse.home import generation


@pytest.fixture(scope="module")
def loc(small: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, ...]:
    wh = small.copy(tmp_path_factory.mktemp("long-lived"))
    return ("--dsh-home", str(wh.paths.dsh_home), "--autoclaw-root", str(wh.paths.autoclaw_root),
            "--home", str(wh.paths.home))


@pytest.fixture
def no_gc() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _engine_threads() -> list[str]:
    return sorted(t.name for t in threading.enumerate() if t.name.startswith(("akw-side", "akw-lane-watchdog")))


def test_in_process_searches_leave_no_connection_memory_or_thread(loc: tuple[str, ...], no_gc: None) -> None:
    before = _engine_threads()
    for query in ("who restored MySQL root access", "кто чинил доступ к MySQL", "postgres migration") * 5:
        r = run(*loc, "search", query, "--json")
        assert r.code == 0, r.stderr
    for t in threading.enumerate():
        if t.name.startswith("akw-side"):
            t.join(timeout=5)  # a closed pool's workers end on their own, just after the command
    assert _engine_threads() == before
    # every connection of the runs is closed, so a new one opens a new database instance: nothing of
    # the earlier searches' session tables is left in its memory
    con, _gen = generation.open_current(Path(loc[-1]) / "generations")
    try:
        held = con.execute("SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory() "
                           "WHERE tag IN ('IN_MEMORY_TABLE', 'COLUMN_DATA')").fetchone()[0]
    finally:
        con.close()
    assert held < 4 * 2**20, f"{held / 2**20:.1f} MiB of earlier searches' tables still held"
