"""One reader policy per process: search, cards and `akw sql` share the published generation's
database instance; `akw sql` is one statement, under a deadline, spilling into its own folder."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest
from homes import BuiltHome

from warehouse.api import Warehouse
from warehouse.core.errors import KnowledgeError
from warehouse.core.settings import Settings

AKW = [sys.executable, "-m", "warehouse"]


@pytest.fixture(scope="module")
def home(small: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    wh = small.copy(tmp_path_factory.mktemp("sqlreader") / "akw")
    env = {**os.environ, "DSH_HOME": str(wh.paths.dsh_home), "AUTOCLAW_ROOT": str(wh.paths.autoclaw_root),
           "AKW_HOME": str(wh.paths.home)}
    return {"wh": wh, "env": env}


def test_search_sql_get_sql_search_in_one_process(home) -> None:
    wh = Warehouse(home["wh"].paths)  # a fresh handle: nothing opened yet in this process for it
    first = wh.search_text("mysql access", limit=3)
    assert wh.sql("SELECT count(*) FROM ak_document")["rows"][0][0] > 0
    episode = first["lanes"]["episodes"]["items"][0]["id"]
    assert wh.get("episode", episode)["schema"].startswith("knowledge.card.")
    assert wh.sql("SELECT count(*) FROM ak_episode")["rows"][0][0] > 0
    again = wh.search_text("mysql access", limit=3)
    assert again["lanes"]["episodes"]["items"][0]["id"] == episode


@pytest.mark.parametrize("query", ["", "   ", " ; ;", "SELECT 1; SELECT 2", "SET threads = 8",
                                   "COPY (SELECT 1) TO '/tmp/akw-x.csv'", "SELEC nonsense"])
def test_not_exactly_one_read_only_statement_is_a_coded_error(home, query) -> None:
    with pytest.raises(KnowledgeError) as e:
        home["wh"].sql(query)
    assert e.value.code == "KNOWLEDGE_QUERY_INVALID"


def test_no_file_access_from_sql(home) -> None:
    with pytest.raises(KnowledgeError) as e:
        home["wh"].sql("SELECT * FROM read_csv('/etc/passwd')")
    assert e.value.code == "KNOWLEDGE_QUERY_INVALID"


def test_a_reader_loads_no_extension_file_of_its_own(home, tmp_path: Path) -> None:
    """Extensions load without DuckDB's signature check (ADR 0001, "Extensions"): what keeps any other
    binary out is that a reader's database refuses every LOAD once its own extension is in, by name or by path."""
    from warehouse.core.db import extension_directory
    from warehouse.home import generation

    planted = tmp_path / "planted.duckdb_extension"
    planted.write_bytes(next(Path(extension_directory()).rglob("httpfs.duckdb_extension")).read_bytes())
    con, _ = generation.open_current(home["wh"].paths.generations)
    try:
        for statement in (f"LOAD '{planted}'", "LOAD httpfs", "INSTALL httpfs"):
            with pytest.raises(duckdb.PermissionException):
                con.execute(statement)
        with pytest.raises(duckdb.Error):  # the setting that guards it cannot be turned back on
            con.execute("SET enable_external_access = true")
        assert con.execute("SELECT count(*) FROM ak_document").fetchone()[0] > 0
    finally:
        con.close()
    with pytest.raises(KnowledgeError) as e:  # nor through `akw sql`: one read-only statement
        home["wh"].sql(f"LOAD '{planted}'")
    assert e.value.code == "KNOWLEDGE_QUERY_INVALID"


def test_a_recursive_cte_is_interrupted_at_the_timeout(home) -> None:
    wh = Warehouse(home["wh"].paths, Settings.model_validate({"query": {"timeout_s": 0.5}}))
    q = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r"
    with pytest.raises(KnowledgeError) as e:
        wh.sql(q)
    assert e.value.code == "KNOWLEDGE_LIMIT" and e.value.details["limit"] == "query.timeout_s"


# sorts ~130 MB of rows through a reader's 100 MB buffer pool: it spills (the cap test below proves it)
SPILL = "SELECT count(*), max(m) FROM (SELECT i, md5(i::VARCHAR) AS m FROM range(2000000) r(i) ORDER BY m)"


def test_two_concurrent_spilling_sql_processes_each_get_their_own_folder(home) -> None:
    spill = Path(home["env"]["AKW_HOME"]) / "spill"
    stale = spill / "999999999-1"  # a dead process's folder (kill -9): swept at the next start
    stale.mkdir(parents=True, exist_ok=True)
    (stale / "duckdb_temp_block-1.block").write_bytes(b"x")
    env = {**home["env"], "AKW_QUERY__TIMEOUT_S": "600"}  # a loaded machine must not turn this into a timeout
    procs = [subprocess.Popen([*AKW, "sql", SPILL, "--json"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    seen: set[str] = set()
    modes: set[int] = set()
    while any(p.poll() is None for p in procs):  # watch the folders while they spill
        for d in spill.glob("*") if spill.exists() else []:
            if d == stale:
                continue
            seen.add(d.name)
            with contextlib.suppress(FileNotFoundError):
                modes.add(stat.S_IMODE(d.stat().st_mode))
    outs = [p.communicate() for p in procs]
    for p, (o, e) in zip(procs, outs, strict=True):
        assert p.returncode == 0, o + e
        assert json.loads(o)["rows"][0][0] == 2000000
    pids = {str(p.pid) for p in procs}
    assert pids <= {n.split("-")[0] for n in seen}  # one folder per process
    assert modes == {0o700}
    assert not stale.exists()
    assert not [d for d in spill.iterdir() if d.name.split("-")[0] != str(os.getpid())]  # removed at exit
    assert stat.S_IMODE(spill.stat().st_mode) == 0o700


def test_spill_past_the_cap_is_a_limit(home) -> None:
    env = {**home["env"], "AKW_QUERY__SPILL_LIMIT": "1MB", "AKW_QUERY__TIMEOUT_S": "600"}
    p = subprocess.run([*AKW, "sql", SPILL, "--json"], env=env, capture_output=True, text=True)
    assert p.returncode != 0
    err = json.loads(p.stdout or p.stderr)
    assert err["errors"][0]["code"] == "KNOWLEDGE_LIMIT" and err["errors"][0]["limit"] == "query.spill_limit"


def test_a_query_past_the_readers_memory_names_that_limit(home) -> None:
    """Issue 25: an aggregate that cannot spill hit the reader's 100 MB budget and was reported as
    `query.spill_limit`, a setting that could not have helped."""
    env = {**home["env"], "AKW_QUERY__TIMEOUT_S": "600"}
    p = subprocess.run([*AKW, "sql", "SELECT length(list(i)) FROM range(60000000) t(i)", "--json"], env=env,
                       capture_output=True, text=True)
    assert p.returncode != 0
    err = json.loads(p.stdout or p.stderr)["errors"][0]
    assert err["code"] == "KNOWLEDGE_LIMIT" and err["limit"] == "reader.memory_limit", err
    assert "100MB" in err["message"] and "query.spill_limit" not in err["message"]
