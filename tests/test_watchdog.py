"""The lane watchdog interrupts only what overruns its deadline, on a real DuckDB cursor too."""

from __future__ import annotations

import time

import duckdb
import pytest

from warehouse.search.watchdog import Watchdog


class Flag:
    def __init__(self) -> None:
        self.hits = 0

    def interrupt(self) -> None:
        self.hits += 1


def test_in_time_is_left_alone_and_overrun_is_interrupted() -> None:
    dog = Watchdog()
    quick, slow = Flag(), Flag()
    with dog.deadline(quick, 0.2):
        pass
    with dog.deadline(slow, 0.05):
        time.sleep(0.2)
    time.sleep(0.3)  # past quick's deadline: it finished, so it must not be touched
    assert (quick.hits, slow.hits) == (0, 1)


def test_earliest_deadline_wins_over_a_later_one() -> None:
    dog = Watchdog()
    late, early = Flag(), Flag()
    with dog.deadline(late, 5.0), dog.deadline(early, 0.05):
        time.sleep(0.2)
        assert (late.hits, early.hits) == (0, 1)


def test_interrupts_a_running_duckdb_query() -> None:
    con = duckdb.connect()
    t0 = time.perf_counter()
    with pytest.raises(duckdb.InterruptException), Watchdog().deadline(con, 0.1):
        con.execute("SELECT count(*) FROM range(10000000000) a(x) WHERE x % 7 = 3").fetchall()
    assert time.perf_counter() - t0 < 5
    assert con.execute("SELECT 1").fetchone() == (1,)  # the cursor is usable afterwards
