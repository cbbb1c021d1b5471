"""Issue 17: a team lake written with another bronze schema is refused with a stable code, not an obscure failure."""

from __future__ import annotations

from pathlib import Path

import akw_fixtures
import pytest
from team_helpers import akw

from warehouse.core.settings import LakeSettings
from warehouse.team import catalog

pytestmark = pytest.mark.team


def test_a_lake_of_another_bronze_schema_is_refused(tmp_path: Path, team_catalog: dict[str, str]) -> None:
    fx, home = tmp_path / "fx", tmp_path / "w"
    akw_fixtures.generate(fx, sessions=3, seed=5)
    pgpass = {"PGPASSFILE": team_catalog["passfile"]}
    init = akw(home, fx, "team", "init", "--catalog", team_catalog["dsn"], "--data-path", team_catalog["data_path"],
               "--writer-id", "alice", **pgpass)
    assert init["bronze_schema"] == catalog.BRONZE_SCHEMA
    assert akw(home, fx, "team", "push", **pgpass)["push"]["ok"]
    cfg = LakeSettings(backend="ducklake", catalog=team_catalog["dsn"], data_path=team_catalog["data_path"],
                       writer_id="alice", passfile=team_catalog["passfile"])
    with catalog.lake(cfg) as con:  # a newer version of akw wrote this lake
        con.execute(f"UPDATE {catalog.META} SET value = '999' WHERE key = 'bronze_schema'")
    for args in (("team", "push"), ("reindex",), ("reindex", "--snapshot", "2"), ("team", "init", "--catalog",
                 team_catalog["dsn"], "--data-path", team_catalog["data_path"])):
        err = akw(home, fx, *args, ok=False, **pgpass)["errors"][0]
        assert err["code"] == "KNOWLEDGE_SOURCE_SCHEMA_UNSUPPORTED", (args, err)
        assert err["lake_schema"] == "999" and err["schema"] == catalog.BRONZE_SCHEMA
    with catalog.lake(cfg) as con:  # the same version again: pushes and builds resume
        con.execute(f"UPDATE {catalog.META} SET value = ? WHERE key = 'bronze_schema'", [catalog.BRONZE_SCHEMA])
    assert akw(home, fx, "reindex", **pgpass)["outcome"] == "published"
