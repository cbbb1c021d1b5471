"""Hex-encoded literals round-trip any text through DuckDB and never import pandas."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime

import duckdb
import pytest

from warehouse.core import literals

NASTY = ["'; DROP TABLE x; --", "кто чинил MySQL «176.99.5.35»", "\\x00'\"$1?", "", "emoji 🙂 and \u00a0nbsp", "?",
         "$q$; DROP TABLE x; --", "a $q", "ends with $q", "$q1$$q$", "$", "$$", "nul \x00 inside"]


@pytest.mark.parametrize("value", NASTY)
def test_text_round_trips_and_holds_no_sql(value: str) -> None:
    sql = literals.text(value)
    if sql.startswith("decode("):
        assert set(sql.removeprefix("decode(from_hex('").removesuffix("'))")) <= set("0123456789abcdef")
    else:  # $tag$value$tag$ and the tag does not occur inside: nothing can close the literal early
        tag = sql[: sql.index("$", 1) + 1]
        assert sql == f"{tag}{value}{tag}" and tag not in value + tag[:-1] and not value.endswith(tag[:-1])
    assert duckdb.connect().execute(f"SELECT {sql}").fetchone() == (value,)
    assert duckdb.connect().execute(f"SELECT [{sql}, {sql}]").fetchone() == ([value, value],)


def test_lists_numbers_and_times() -> None:
    con = duckdb.connect()
    assert con.execute(f"SELECT {literals.texts(NASTY)}").fetchone() == (NASTY,)
    assert con.execute(f"SELECT {literals.texts([])}").fetchone() == ([],)
    assert con.execute(f"SELECT {literals.integers([1, -2, 3])}, {literals.doubles([0.5, 1e-9])}").fetchone() == (
        [1, -2, 3], [0.5, 1e-9])
    ts = datetime(2026, 10, 1, 12, 30, 5, 123456, tzinfo=UTC)
    con.execute("SET TimeZone = 'UTC'")
    assert con.execute(f"SELECT {literals.timestamp(ts)}").fetchone() == (ts,)
    with pytest.raises(ValueError):
        literals.double(float("nan"))


def test_a_search_process_does_not_import_pandas(tmp_path) -> None:
    code = ("import sys, duckdb\nfrom warehouse.core import literals\n"
            "c = duckdb.connect()\nc.execute('SELECT ' + literals.text('x')).fetchall()\n"
            "print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_number_rows_parse_back() -> None:
    rows = [(0, 12, 3.25, 5), (2, 7, 1e-05, 0), (1, 99, 1234567.5, 2**40)]
    lit = literals.number_rows(rows)
    assert set(lit.strip("'")) <= set("0123456789.,;e-+")
    got = duckdb.connect().execute(
        f"SELECT split_part(r, ',', 1)::INTEGER, split_part(r, ',', 2)::INTEGER, split_part(r, ',', 3)::DOUBLE, "
        f"split_part(r, ',', 4)::BIGINT FROM unnest(string_split({lit}, ';')) AS t(r)").fetchall()
    assert got == rows


def test_heap_tuning_is_idempotent() -> None:
    from warehouse.core.proc import keep_heap_warm

    assert keep_heap_warm() == keep_heap_warm()


def test_doubles_are_exact() -> None:
    import random

    rnd = random.Random(3)
    vals = [0.1, 0.30000000000000004, 1e-300, 123456789.123456789, 2.0**-1074, *(rnd.random() * 10 ** rnd.randint(-8, 8)
                                                                           for _ in range(200))]
    got = duckdb.connect().execute(f"SELECT {literals.doubles(vals)}").fetchone()[0]
    assert got == vals
    assert duckdb.connect().execute(f"SELECT {literals.value(0.1)}, {literals.value(7)}, {literals.value(True)}, "
                                    f"{literals.value('a')}").fetchone() == (0.1, 7, True, "a")


def test_tuned_env_adds_the_malloc_tunable_once() -> None:
    from warehouse.core.proc import GLIBC_TUNABLES, tuned_env

    env = tuned_env({"PATH": "/bin"})
    if sys.platform.startswith("linux"):
        assert env["GLIBC_TUNABLES"] == GLIBC_TUNABLES
        assert tuned_env({"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=65536"})["GLIBC_TUNABLES"] == (
            "glibc.malloc.mmap_threshold=65536:" + GLIBC_TUNABLES)
        assert tuned_env(env) == env
    out = subprocess.run([sys.executable, "-c", "print(1)"], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1"  # the tunable is accepted by the loader


def test_db_run_takes_parameters_as_literals_and_never_imports_pandas() -> None:
    """`db.run` gives what bound parameters give (scalars, text and integer lists, empty lists, NULL),
    in a process that never imports pandas (binding a Python value would: ~0.25 s per CLI call)."""
    code = ("import sys, duckdb\nfrom warehouse.core import db\nc = duckdb.connect()\n"
            "c.execute(\"CREATE TABLE t AS SELECT * FROM (VALUES (1, 'a'), (2, $$b'; --$$), (3, NULL)) v(n, s)\")\n"
            "q = 'SELECT n FROM t WHERE (n = ? OR s = ANY(?) OR n IN (SELECT unnest(?))) AND ? IS NULL ORDER BY n'\n"
            "print(db.run(c, q, [1, [\"b'; --\"], [], None]).fetchall(), db.run(c, q, [9, [], [3], None]).fetchall(),"
            " db.run(c, 'SELECT count(*) FROM t').fetchall(), 'pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[(1,), (2,)] [(3,)] [(3,)] False"
