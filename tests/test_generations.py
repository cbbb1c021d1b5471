"""Generations: same input -> same index; kill -9 never breaks the published index; one writer.

Builds run as real child processes (`python -m warehouse reindex … --json`) where a crash or
a lock must be real; readers in this process open the published generation meanwhile.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import akw_fixtures
import pytest

from warehouse.api import Warehouse
from warehouse.core.paths import Paths
from warehouse.home import generation
from warehouse.search.lexical import lexical_search

SESSIONS, SEED = 24, 11
QUERIES = [("episodes", "MySQL access denied"), ("episodes", "диск заполнен postgres"),
           ("episodes", "176.99.5.35"), ("code", "nginx proxy"), ("skills", "деплой сайта")]


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("generations")
    akw_fixtures.generate(out, sessions=SESSIONS, seed=SEED)
    return out


@pytest.fixture(scope="module")
def pair(src: Path) -> tuple[Warehouse, Warehouse]:
    """Two fresh homes built in this process from the same generated input."""
    homes = []
    for name in ("akw-a", "akw-b"):
        wh = Warehouse.open(src / "dsh", src / "autoclaw", src / name)
        assert wh.reindex(mode="incremental")["outcome"] == "published"
        homes.append(wh)
    return homes[0], homes[1]


@pytest.fixture(scope="module")
def crash_home(src: Path, pair: tuple[Warehouse, Warehouse]) -> Path:
    """A third home holding a successful build (a copy of home A) for the crash and lock tests."""
    home = src / "akw-crash"
    shutil.copytree(pair[0].paths.home, home)
    return home


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("AKW_") and k not in ("DSH_HOME", "AUTOCLAW_ROOT")}
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _args(src: Path, home: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "warehouse", "reindex", *extra, "--json", "--home", str(home),
            "--dsh-home", str(src / "dsh"), "--autoclaw-root", str(src / "autoclaw")]


def _spawn(src: Path, home: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(_args(src, home, *extra), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env=_env())


def _finish(p: subprocess.Popen[str], timeout: float = 120) -> tuple[int, dict[str, Any]]:
    out, _ = p.communicate(timeout=timeout)
    return p.returncode, json.loads(out.strip().splitlines()[-1])


def _table_bytes(wh: Warehouse, sql: str) -> bytes:
    """A query result as JSON lines (schema first): equal bytes = equal columns, types, rows and order.

    Not Arrow IPC: the data buffer under a NULL slot is undefined, so equal tables may differ in bytes.
    """
    con, _ = generation.open_current(wh.paths.generations)
    try:
        table = con.execute(sql).fetch_arrow_table()
    finally:
        con.close()
    lines = [str(table.schema), *(json.dumps(r, default=str, ensure_ascii=False) for r in table.to_pylist())]
    return "\n".join(lines).encode()


def _read_published(home: Path) -> tuple[str, int]:
    """What a reader sees: (rev inside the opened file, document count); it must match the pointer."""
    con, gen = generation.open_current(home / "generations")
    try:
        rev = con.execute("SELECT index_rev FROM akw_meta").fetchone()[0]
        docs = con.execute("SELECT count(*) FROM ak_document").fetchone()[0]
    finally:
        con.close()
    assert rev == gen.index_rev, "a reader saw a generation whose content disagrees with its pointer"
    return rev, docs


# -- determinism ------------------------------------------------------------------------
def test_same_input_same_rev_and_identical_tables(pair: tuple[Warehouse, Warehouse]) -> None:
    a, b = pair
    gen_a, gen_b = generation.current(a.paths.generations), generation.current(b.paths.generations)
    assert gen_a is not None and gen_b is not None
    assert gen_a.index_rev == gen_b.index_rev
    for sql in ("SELECT * FROM ak_document ORDER BY doc_id", "SELECT * FROM ak_actor ORDER BY actor_id",
                "SELECT * FROM ak_episode ORDER BY episode_id", "SELECT * FROM ak_event ORDER BY event_id",
                "SELECT * FROM ak_coverage ORDER BY source, entity"):
        data_a = _table_bytes(a, sql)
        assert len(data_a) > 1000, sql
        assert data_a == _table_bytes(b, sql), sql


def test_same_input_same_search_results(pair: tuple[Warehouse, Warehouse]) -> None:
    results = []
    for wh in pair:
        con, _ = generation.open_current(wh.paths.generations)
        try:
            keys = dict(con.execute("SELECT doc_id, doc_key FROM ak_document").fetchall())
            results.append([[(keys[d], s, m) for d, s, m in lexical_search(con, lane, q, k=20)]
                            for lane, q in QUERIES])
        finally:
            con.close()
    assert all(results[0]), "every probe query should find something"
    assert results[0] == results[1]


# -- crash safety -------------------------------------------------------------------------
def _wait_for_build_file(p: subprocess.Popen[str], gens: Path, home: Path, baseline: tuple[str, int]) -> None:
    """Poll until the child is writing `.building-*` (it then holds the writer lock), reading meanwhile."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        # a killed earlier run may have left its own .building-* file: wait for this child's lock too
        holder = (home / "akw.lock").read_text().strip() if (home / "akw.lock").exists() else ""
        if holder == str(p.pid) and any(gens.glob(".building-*.duckdb")):
            return
        assert p.poll() is None, "the build finished before it could be killed"
        assert _read_published(home) == baseline
        time.sleep(0.02)
    raise AssertionError("no .building-* file appeared")


def test_kill_9_keeps_the_published_generation(src: Path, crash_home: Path) -> None:
    gens = crash_home / "generations"
    baseline = _read_published(crash_home)
    pointer = (gens / generation.POINTER).read_bytes()
    reads = 0
    for when in (0.2, 0.6, 1.2, "building"):
        p = _spawn(src, crash_home, "--mode", "full")
        if when == "building":
            _wait_for_build_file(p, gens, crash_home, baseline)
            lock_holder = (crash_home / "akw.lock").read_text().strip()
            assert lock_holder == str(p.pid)  # killed while it holds the writer lock
        else:
            deadline = time.monotonic() + float(when)
            while time.monotonic() < deadline:  # readers keep working while the child starts and extracts
                assert _read_published(crash_home) == baseline
                reads += 1
                time.sleep(0.02)
        os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=30)
        assert p.returncode == -signal.SIGKILL, f"child exited by itself at {when}"
        assert (gens / generation.POINTER).read_bytes() == pointer, f"pointer changed by a killed build ({when})"
        assert _read_published(crash_home) == baseline
    assert reads > 5
    assert any(gens.glob(".building-*")), "the last kill should have left a partial build file behind"
    code, doc = _finish(_spawn(src, crash_home))  # the next run succeeds (and tidies up)
    assert code == 0, doc
    assert doc["outcome"] in ("noop", "published") and doc["index_rev"] == baseline[0]
    assert not any(gens.glob(".building-*"))
    assert _read_published(crash_home) == baseline
    verify = Warehouse.open(src / "dsh", src / "autoclaw", crash_home).reindex(mode="verify")
    assert verify["ok"], verify["mismatches"]


def test_readers_keep_working_during_a_build(src: Path, crash_home: Path) -> None:
    gens = crash_home / "generations"
    before = generation.current(gens)
    baseline = _read_published(crash_home)
    p = _spawn(src, crash_home, "--mode", "full")
    reads = 0
    while p.poll() is None:
        assert _read_published(crash_home) == baseline  # same input: the rev never changes
        reads += 1
        time.sleep(0.05)  # leave the child a core (the machine may have two)
    code, doc = _finish(p)
    assert code == 0 and doc["outcome"] == "published", doc
    after = generation.current(gens)
    assert after is not None and before is not None and after.seq == before.seq + 1
    assert reads > 10
    assert _read_published(crash_home) == baseline


# -- single writer --------------------------------------------------------------------------
def test_second_writer_is_refused_then_waits(src: Path, crash_home: Path) -> None:
    baseline = _read_published(crash_home)
    with generation.writer_lock(Paths.resolve(home=crash_home)):
        refused = subprocess.run(_args(src, crash_home), capture_output=True, text=True, env=_env(), timeout=120)
        assert refused.returncode != 0
        doc = json.loads(refused.stdout)
        assert [e["code"] for e in doc["errors"]] == ["KNOWLEDGE_INDEX_LOCKED"]
        waiting = _spawn(src, crash_home, "--wait", "60")
        t_end = time.monotonic() + 1.5
        while time.monotonic() < t_end:
            assert waiting.poll() is None, "a second writer ran while the lock was held"
            assert _read_published(crash_home) == baseline
            time.sleep(0.05)
    code, doc = _finish(waiting)
    assert code == 0, doc
    assert doc["outcome"] == "noop" and doc["index_rev"] == baseline[0]


def test_stale_build_leftovers_include_duckdbs_spill_folder(tmp_path: Path) -> None:
    """A killed build may leave its file, WAL and DuckDB's `<file>.tmp` spill folder."""
    gens = tmp_path / "generations"
    spill = gens / ".building-ak-x-1.duckdb.tmp"
    spill.mkdir(parents=True)
    (spill / "duckdb_temp_block-1.block").write_bytes(b"x")
    for name in (".building-ak-x-1.duckdb", ".building-ak-x-1.duckdb.wal"):
        (gens / name).write_bytes(b"x")
    (gens / "gen-000001-ak-y.duckdb").write_bytes(b"kept")
    generation.discard_stale_builds(gens)
    assert sorted(p.name for p in gens.iterdir()) == ["gen-000001-ak-y.duckdb"]
