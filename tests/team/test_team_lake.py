"""Issue 17: the team warehouse on DuckLake with a real PostgreSQL catalog (no mocks).

Writers and readers are separate `akw` processes with their own homes; the catalog is the
session's throwaway cluster (conftest.py), reached through a pgpass file.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import akw_fixtures
import duckdb
import pytest
from team_helpers import akw, popen, raw_hits, strip, union_lake
from team_pg import PASSWORD, Cluster

from warehouse.api import Warehouse
from warehouse.core.paths import Paths
from warehouse.core.settings import LakeSettings, Settings
from warehouse.home import generation
from warehouse.indexing import index_rev
from warehouse.indexing.team_source import LakeChoice
from warehouse.pipeline import curation
from warehouse.pipeline.reindex import _build
from warehouse.team import catalog
from warehouse.team.forget import forget_session
from warehouse.team.push import FAULT_PAUSE_ENV

pytestmark = pytest.mark.team
QUERIES = ("nginx", "деплой shop-notify", "postgres backup", "cert rotation", "disk usage", "CI pipeline")


@pytest.fixture(scope="module")
def homes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two generated source homes with disjoint sessions (different seeds) and an empty one for readers."""
    root = tmp_path_factory.mktemp("team-fx")
    a, b, empty = root / "alice", root / "bob", root / "empty"
    akw_fixtures.generate(a, sessions=8, seed=7)
    akw_fixtures.generate(b, sessions=8, seed=11)
    (empty / "dsh").mkdir(parents=True)
    (empty / "autoclaw").mkdir()
    return {"alice": a, "bob": b, "empty": empty}


def _init(home: Path, fx: Path, cat: dict[str, str], writer: str, **env: str) -> dict[str, Any]:
    return akw(home, fx, "team", "init", "--catalog", cat["dsn"], "--data-path", cat["data_path"],
               "--writer-id", writer, PGPASSFILE=cat["passfile"], **env)


def _cfg(cat: dict[str, str], writer: str = "test") -> LakeSettings:
    return LakeSettings(backend="ducklake", catalog=cat["dsn"], data_path=cat["data_path"], writer_id=writer,
                        passfile=cat["passfile"])


def _sessions(home: Path) -> list[str]:
    con, _gen = generation.open_current(home / "generations")
    try:
        return [r[0] for r in con.execute("SELECT session_id FROM stg_dsh_sessions ORDER BY 1").fetchall()]
    finally:
        con.close()


def _local_sessions(home: Path) -> set[str]:
    return {r[0] for r in duckdb.sql(
        f"SELECT session_id FROM read_parquet('{home}/lake/bronze/dsh/sessions/*.parquet')").fetchall()}


def test_init_is_idempotent_and_the_password_stays_out(tmp_path: Path, homes: dict[str, Path],
                                                       team_catalog: dict[str, str]) -> None:
    fx, home = homes["alice"], tmp_path / "w"
    refused = akw(home, fx, "team", "init", "--catalog", team_catalog["dsn"], "--data-path",
                  team_catalog["data_path"], ok=False)  # no pgpass file: the catalog asks for a password
    assert refused["errors"][0]["code"] == "KNOWLEDGE_CATALOG_UNAVAILABLE"
    first = _init(home, fx, team_catalog, "alice")
    again = _init(home, fx, team_catalog, "alice")
    assert first["created"] is True and again["created"] is False
    assert first["lake_id"] == again["lake_id"] and again["snapshot_id"] == first["snapshot_id"]
    bad = akw(home, fx, "team", "init", "--catalog", team_catalog["dsn"] + f" password={PASSWORD}",
              "--data-path", team_catalog["data_path"], ok=False)
    assert bad["errors"][0]["code"] == "KNOWLEDGE_CONFIG_INVALID" and PASSWORD not in json.dumps(bad)
    bad = akw(home, fx, "config", "set", "lake.catalog=postgresql://akw:hunter2@localhost/x", ok=False)
    assert bad["errors"][0]["code"] == "KNOWLEDGE_CONFIG_INVALID"
    push = akw(home, fx, "team", "push", PGPASSFILE=team_catalog["passfile"])["push"]
    assert push["ok"] and push["units_pushed"] > 0
    for f in home.rglob("*"):  # config, state, logs, run records: the password is nowhere in the home
        assert not f.is_file() or PASSWORD.encode() not in f.read_bytes(), f


def test_two_writers_push_concurrently_and_a_third_machine_builds_the_union(
        tmp_path: Path, homes: dict[str, Path], team_catalog: dict[str, str]) -> None:
    wa, wb, reader = tmp_path / "alice", tmp_path / "bob", tmp_path / "carol"
    pgpass = {"PGPASSFILE": team_catalog["passfile"]}
    _init(wa, homes["alice"], team_catalog, "alice")
    _init(wb, homes["bob"], team_catalog, "bob")
    procs = [popen(wa, homes["alice"], "team", "push", AKW_LAKE__BATCH_UNITS="5", **pgpass),
             popen(wb, homes["bob"], "team", "push", AKW_LAKE__BATCH_UNITS="5", **pgpass)]
    docs = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=600)
        assert p.returncode == 0, stderr[-2000:]
        docs.append(json.loads(stdout))
    assert all(d["push"]["ok"] and d["push"]["commits"] > 1 for d in docs), [d["push"] for d in docs]

    # the reader reaches the catalog through lake.passfile (no PGPASSFILE in its environment)
    _init(reader, homes["empty"], team_catalog, "carol")
    akw(reader, homes["empty"], "config", "set", f"lake.passfile={team_catalog['passfile']}")
    built = akw(reader, homes["empty"], "reindex")
    assert built["outcome"] == "published" and built["team"]["snapshot_id"] >= docs[0]["push"]["snapshot_id"]
    got = _sessions(reader)
    expected = _local_sessions(wa) | _local_sessions(wb)
    assert len(_local_sessions(wa) & _local_sessions(wb)) == 0 and len(expected) == 16
    assert sorted(got) == sorted(expected)  # every session of both writers, none twice
    scope = akw(reader, homes["empty"], "sql", "SELECT writer_id, id FROM ak_writer_scope WHERE kind = 'session'")
    by_writer = {w: {i for ww, i in scope["rows"] if ww == w} for w in ("alice", "bob")}
    assert by_writer["alice"] >= _local_sessions(wa) and by_writer["bob"] >= _local_sessions(wb)
    assert not by_writer["alice"] & _local_sessions(wb)  # the access-control seam: who each session is from

    # a single machine's build over the union of both lakes gives the same answers
    union = tmp_path / "union"
    union_lake({"alice": wa, "bob": wb}, union)
    paths = Paths(dsh_home=union / "none", autoclaw_root=union / "none", home=union)
    paths.ensure()
    settings = Settings()
    rev = index_rev.compute(paths.state_dir, settings, None)
    build_path = generation.new_build_path(paths.generations, rev)
    record = {"mode": "full", "index_rev": rev, "run_id": "union", "started_at": "x"}
    _build(paths, settings, build_path, record, None, LakeChoice(paths.lake, rev))
    generation.publish(paths.generations, build_path, rev, "2026-01-01T00:00:00Z")
    curation.run(paths)  # as every reindex ends: the trust prior both sides rank with
    w_team, w_union = Warehouse(Paths.resolve(home=reader)), Warehouse(paths, settings)
    counts = ("SELECT (SELECT count(*) FROM ak_document), (SELECT count(*) FROM ak_episode), "
              "(SELECT count(*) FROM ak_actor)")
    # (sql before search: the one-process sql-after-search bug is i13-states')
    assert w_team.sql(counts)["rows"] == w_union.sql(counts)["rows"]
    for q in QUERIES:
        a, b = strip(w_team.search_text(q)), strip(w_union.search_text(q))
        assert a == b, q
        assert any(isinstance(v, list) and v for v in a.values()), q  # an answer, not two empty ones

    # the same snapshot gives the same rev on another machine; an older one travels back in time
    sid = built["team"]["snapshot_id"]
    again = akw(wa, homes["alice"], "reindex", "--snapshot", str(sid), **pgpass)
    assert again["index_rev"] == built["index_rev"] and sorted(_sessions(wa)) == sorted(expected)
    first_alice = min(d["push"]["snapshot_id"] for d in docs)
    old = akw(wa, homes["alice"], "reindex", "--snapshot", "2", **pgpass)
    assert old["index_rev"] != built["index_rev"] and len(_sessions(wa)) < 16 and first_alice > 2
    status = akw(reader, homes["empty"], "team", "status")
    assert status["state"] == "ready" and {w["writer_id"] for w in status["writers"]} >= {"alice", "bob"}
    assert status["snapshot_id"] == sid and status["lag_snapshots"] == 0
    assert all(w["last_snapshot_id"] and w["last_commit_at"] for w in status["writers"]
               if w["writer_id"] in ("alice", "bob"))


def test_kill_9_in_the_middle_of_a_commit(tmp_path: Path, homes: dict[str, Path],
                                          team_catalog: dict[str, str]) -> None:
    home, fx = tmp_path / "w", homes["alice"]
    pgpass = {"PGPASSFILE": team_catalog["passfile"]}
    _init(home, fx, team_catalog, "alice")
    marker = tmp_path / "in-commit"
    p = popen(home, fx, "team", "push", AKW_LAKE__BATCH_UNITS="4", **{FAULT_PAUSE_ENV: f"{marker}@1"}, **pgpass)
    deadline = time.monotonic() + 300
    while not marker.exists():
        assert p.poll() is None and time.monotonic() < deadline, p.communicate()[1][-2000:]
        time.sleep(0.1)
    os.kill(p.pid, signal.SIGKILL)  # batch 0 committed, batch 1's rows are written but not committed
    p.wait()
    cfg = _cfg(team_catalog, "alice")
    with catalog.lake(cfg) as con:
        units = con.execute(f"SELECT source, unit_key FROM {catalog.UNITS} WHERE writer_id = 'alice'").fetchall()
        assert 0 < len(units) <= 4  # only the committed batch
        visible = {tuple(r) for r in con.execute(
            "SELECT DISTINCT 'dsh', unit_key FROM team_lake.dsh__events UNION "
            "SELECT DISTINCT 'dsh', unit_key FROM team_lake.dsh__sessions UNION "
            "SELECT DISTINCT 'autoclaw', unit_key FROM team_lake.autoclaw__ac_entries UNION "
            "SELECT DISTINCT 'code', unit_key FROM team_lake.code__code_chunks").fetchall()}
        assert visible <= set(units)  # no row of an uncommitted unit is visible
        for source, key in units:  # and every committed unit is whole: its rows equal the local file's
            for f in (home / "lake" / "bronze" / source).glob(f"*/{key}.parquet"):
                n = con.execute(f"SELECT count(*) FROM team_lake.{source}__{f.parent.name} WHERE unit_key = ?",
                                [key]).fetchone()[0]
                assert n == duckdb.sql(f"SELECT count(*) FROM '{f}'").fetchone()[0], f
    resumed = akw(home, fx, "team", "push", **pgpass)["push"]
    assert resumed["ok"] and resumed["units_pushed"] > 0
    with catalog.lake(cfg) as con:
        n, distinct = con.execute("SELECT count(*), count(DISTINCT session_id) FROM team_lake.dsh__sessions"
                                  ).fetchone()
        assert n == distinct == len(_local_sessions(home))
        assert con.execute("SELECT count(*) FROM team_lake.dsh__events").fetchone()[0] == duckdb.sql(
            f"SELECT count(*) FROM read_parquet('{home}/lake/bronze/dsh/events/*.parquet')").fetchone()[0]
    assert akw(home, fx, "team", "status", **pgpass)["unpushed_units"] == 0


def test_catalog_unreachable_local_work_goes_on_and_pushes_resume(tmp_path: Path, homes: dict[str, Path],
                                                                  team_catalog: dict[str, str]) -> None:
    home, fx = tmp_path / "w", homes["bob"]
    pgpass = {"PGPASSFILE": team_catalog["passfile"]}
    _init(home, fx, team_catalog, "bob")
    away = f"dbname={team_catalog['db']} host={tmp_path / 'no-server'} user=akw"
    run = akw(home, fx, "reindex", AKW_LAKE__CATALOG=away, **pgpass)
    assert run["outcome"] == "published" and run["team"]["degraded"] is True
    assert run["extract"]["push"]["error"]["code"] == "KNOWLEDGE_CATALOG_UNAVAILABLE"
    assert len(_sessions(home)) == 8  # searchable from the local lake
    status = akw(home, fx, "team", "status", AKW_LAKE__CATALOG=away, **pgpass)
    assert status["state"] == "degraded" and status["push"]["last_attempt"]["ok"] is False
    plain = akw(home, fx, "status", AKW_LAKE__CATALOG=away)  # knowledge_status says it too, offline
    assert plain["state"] == "degraded" and plain["team"]["degraded"] is True
    assert plain["team"]["error"]["code"] == "KNOWLEDGE_CATALOG_UNAVAILABLE"
    back = akw(home, fx, "reindex", **pgpass)
    assert back["extract"]["push"]["ok"] and back["extract"]["push"]["units_pushed"] > 0
    assert back["outcome"] == "published" and back["team"]["snapshot_id"] > 0
    assert akw(home, fx, "team", "status", **pgpass)["state"] == "ready"
    assert akw(home, fx, "status")["team"]["degraded"] is False


def test_forget_session_leaves_no_bytes_in_data_files_or_catalog(tmp_path: Path, homes: dict[str, Path],
                                                                 team_catalog: dict[str, str],
                                                                 pg_cluster: Cluster) -> None:
    home, fx = tmp_path / "w", homes["alice"]
    pgpass = {"PGPASSFILE": team_catalog["passfile"]}
    _init(home, fx, team_catalog, "alice")
    akw(home, fx, "team", "push", **pgpass)
    data = Path(team_catalog["data_path"])
    # a session nobody else's rows mention, and a text only it has
    lake = home / "lake" / "bronze"
    target, needle = None, None
    for sid in sorted(_local_sessions(home)):
        others = raw_hits_other(lake, sid)
        if others:
            continue
        rows = duckdb.sql(f"SELECT text FROM read_parquet('{lake}/dsh/events/*.parquet') WHERE session_id = '{sid}' "
                          "AND length(text) > 40 ORDER BY length(text) DESC LIMIT 1").fetchall()
        if rows:
            target, needle = sid, rows[0][0][:40]
            break
    assert target and needle
    assert raw_hits(data, target) and raw_hits(data, needle)  # the scan can fail: before, both are there
    dump = pg_cluster.dump(team_catalog["db"])
    assert target in dump  # e.g. in min/max statistics and source-state rows
    cfg = _cfg(team_catalog, "alice")
    dry = forget_session(cfg, target)
    assert dry["confirmed"] is False and dry["rows"]["dsh__events"] > 0
    assert raw_hits(data, target)  # a dry run removes nothing
    done = forget_session(cfg, target, confirm=True)
    assert done["confirmed"] and done["rows"] == dry["rows"]
    assert raw_hits(data, target) == [] and raw_hits(data, needle) == []
    assert target not in pg_cluster.dump(team_catalog["db"]) and needle not in pg_cluster.dump(team_catalog["db"])
    # the lake still works: the other sessions remain, a new push commits
    with catalog.lake(cfg) as con:
        left = {r[0] for r in con.execute("SELECT session_id FROM team_lake.dsh__sessions").fetchall()}
    assert left == _local_sessions(home) - {target}
    # forgetting expired the older snapshots: time travel to them is refused, not answered with the session
    gone = akw(home, fx, "reindex", "--snapshot", "2", ok=False, **pgpass)
    assert gone["errors"][0]["code"] == "KNOWLEDGE_NOT_FOUND"


def test_akw_forget_session_removes_it_from_the_shared_lake_too(tmp_path: Path, homes: dict[str, Path],
                                                               team_catalog: dict[str, str]) -> None:
    """`akw forget session ID --yes` on a ducklake home: the catalog loses it first, then the local
    rebuild (which reads a catalog snapshot) proves no residue under AKW_HOME."""
    home, fx = tmp_path / "w", homes["alice"]
    pgpass = {"PGPASSFILE": team_catalog["passfile"]}
    _init(home, fx, team_catalog, "alice")
    akw(home, fx, "reindex", **pgpass)
    roots = akw(home, fx, "sql", "SELECT min(session_id) FROM stg_dsh_sessions WHERE actor_kind = 'root_session'",
                **pgpass)
    target = roots["rows"][0][0]
    data = Path(team_catalog["data_path"])
    assert raw_hits(data, target)
    doc = akw(home, fx, "forget", "session", target, "--yes", **pgpass)
    assert doc["team"]["confirmed"] and doc["team"]["rows"]["dsh__sessions"] >= 1 and doc["residue"] == []
    assert raw_hits(data, target) == []
    with catalog.lake(_cfg(team_catalog, "alice")) as con:
        left = {r[0] for r in con.execute("SELECT session_id FROM team_lake.dsh__sessions").fetchall()}
    assert target not in left and left


def raw_hits_other(lake: Path, sid: str) -> bool:
    """Whether other sessions' rows mention `sid` (a child's team list, say): forgetting `sid` keeps those."""
    for f in sorted(lake.glob("*/*/*.parquet")):
        cols = [r[0] for r in duckdb.sql(f"DESCRIBE SELECT * FROM '{f}'").fetchall()]
        if "session_id" not in cols:
            continue  # lists of session ids (workspaces) are rewritten by forget
        rows = duckdb.execute(f"SELECT * FROM '{f}' WHERE session_id IS DISTINCT FROM ?", [sid]).fetchall()
        if any(sid in str(v) for r in rows for v in r):
            return True
    return False


def test_identical_session_ids_of_two_writers_stay_apart(tmp_path: Path, homes: dict[str, Path],
                                                         team_catalog: dict[str, str]) -> None:
    """Two machines with the same session ids: both copies are kept, each writer replaces and forgets its own."""
    fx, pgpass = homes["alice"], {"PGPASSFILE": team_catalog["passfile"]}
    for w in ("alice", "alice-2"):
        _init(tmp_path / w, fx, team_catalog, w)
        assert akw(tmp_path / w, fx, "team", "push", **pgpass)["push"]["ok"]
    ids = _local_sessions(tmp_path / "alice")
    cfg = _cfg(team_catalog)
    with catalog.lake(cfg) as con:
        rows = con.execute("SELECT writer_id, session_id FROM team_lake.dsh__sessions").fetchall()
    assert sorted(rows) == sorted([("alice", s) for s in ids] + [("alice-2", s) for s in ids])
    one = sorted(ids)[0]
    forget_session(cfg, one, writer_id="alice-2", confirm=True)
    with catalog.lake(cfg) as con:
        left = con.execute("SELECT writer_id FROM team_lake.dsh__sessions WHERE session_id = ?", [one]).fetchall()
    assert left == [("alice",)]
