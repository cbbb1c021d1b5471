"""Issue 17: `akw forget workspace|skill|actor|all` on a ducklake home removes the target from the shared
lake too, not only locally: a raw scan of the data path and a dump of the catalog find none of it."""

from __future__ import annotations

from pathlib import Path

import akw_fixtures
import pytest
from team_helpers import akw, raw_hits
from team_pg import Cluster

from warehouse.core.settings import LakeSettings
from warehouse.team import catalog
from warehouse.team.push import local_units

pytestmark = pytest.mark.team


def _cfg(cat: dict[str, str]) -> LakeSettings:
    return LakeSettings(backend="ducklake", catalog=cat["dsn"], data_path=cat["data_path"], writer_id="alice",
                        passfile=cat["passfile"])


def test_akw_forget_workspace_removes_it_from_the_shared_lake(tmp_path: Path, team_catalog: dict[str, str],
                                                              pg_cluster: Cluster) -> None:
    fx, home = tmp_path / "fx", tmp_path / "w"
    akw_fixtures.generate(fx, sessions=8, seed=7)
    pgpass = {"PGPASSFILE": team_catalog["passfile"]}
    akw(home, fx, "team", "init", "--catalog", team_catalog["dsn"], "--data-path", team_catalog["data_path"],
        "--writer-id", "alice", **pgpass)
    assert akw(home, fx, "reindex", **pgpass)["team"]["snapshot_id"] > 0
    rows = akw(home, fx, "sql", "SELECT w.workspace_id, count(*) FILTER (d.lane = 'code') AS code, count(*) "
               "FROM ak_document d JOIN ak_document_workspace w USING (ws_no) WHERE w.workspace_id IS NOT NULL "
               "GROUP BY 1 HAVING code > 0 ORDER BY 3, 1", **pgpass)["rows"]
    target = rows[0][0]  # the smallest workspace with code
    sessions = [r[0] for r in akw(home, fx, "sql", "SELECT DISTINCT session_id FROM ak_episode WHERE workspace_id = "
                                  f"'{target}' AND session_id IS NOT NULL", **pgpass)["rows"]]
    data = Path(team_catalog["data_path"])
    assert raw_hits(data, target) and target in pg_cluster.dump(team_catalog["db"])  # the scans can fail
    assert all(raw_hits(data, s) for s in sessions)
    dry = akw(home, fx, "forget", "workspace", target, **pgpass)
    assert dry["team"]["confirmed"] is False and dry["team"]["rows"].get("code__code_chunks", 0) > 0
    assert raw_hits(data, target)  # a dry run removes nothing
    doc = akw(home, fx, "forget", "workspace", target, "--yes", **pgpass)
    assert doc["team"]["confirmed"] and doc["residue"] == []
    assert doc["team"]["rows"]["code__code_chunks"] == dry["team"]["rows"]["code__code_chunks"]
    assert raw_hits(data, target) == [] and [s for s in sessions if raw_hits(data, s)] == []
    dump = pg_cluster.dump(team_catalog["db"])
    assert target not in dump and not [s for s in sessions if s in dump]
    with catalog.lake(_cfg(team_catalog)) as con:  # the other workspaces stay
        left = {r[0] for r in con.execute("SELECT DISTINCT workspace_id FROM team_lake.code__code_chunks").fetchall()}
    assert target not in left and left >= {r[0] for r in rows[1:]}
    # the rebuilt index (from the new snapshot) has none of it, and the next push does not bring it back
    assert akw(home, fx, "sql", f"SELECT count(*) FROM ak_document_workspace WHERE workspace_id = '{target}'",
               **pgpass)["rows"] == [[0]]
    assert akw(home, fx, "team", "push", **pgpass)["push"]["ok"]
    assert raw_hits(data, target) == []


def test_akw_forget_all_empties_the_shared_lake(tmp_path: Path, team_catalog: dict[str, str]) -> None:
    fx, home = tmp_path / "fx", tmp_path / "w"
    akw_fixtures.generate(fx, sessions=4, seed=9)
    pgpass = {"PGPASSFILE": team_catalog["passfile"]}
    akw(home, fx, "team", "init", "--catalog", team_catalog["dsn"], "--data-path", team_catalog["data_path"],
        "--writer-id", "alice", **pgpass)
    akw(home, fx, "reindex", **pgpass)
    one = akw(home, fx, "sql", "SELECT min(session_id) FROM stg_dsh_sessions", **pgpass)["rows"][0][0]
    data = Path(team_catalog["data_path"])
    assert raw_hits(data, one)
    doc = akw(home, fx, "forget", "all", "--yes", **pgpass)
    assert doc["team"]["confirmed"] and doc["residue"] == []
    assert raw_hits(data, one) == []
    with catalog.lake(_cfg(team_catalog)) as con:  # what the rebuild's push sent again is what is left locally
        units = con.execute(f"SELECT source, unit_key FROM {catalog.UNITS} WHERE source <> 'meta'").fetchall()
        assert sorted(units) == sorted(local_units(home / "lake"))
        assert con.execute("SELECT count(*) FROM team_lake.dsh__events").fetchone()[0] == 0
        assert con.execute("SELECT count(*) FROM team_lake.dsh__sessions").fetchone()[0] == 0
