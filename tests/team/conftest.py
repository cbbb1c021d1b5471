"""A throwaway PostgreSQL cluster for the team tests: one per session, on a Unix socket in a temp dir
(warehouse/team/scratch_pg.py, the one `akw bench --team` starts too).

Real PostgreSQL (Debian's `postgresql` package), started as an unprivileged user (initdb refuses
root: under root it runs as `nobody`), password authentication (scram) with the password only in a
pgpass file, so the tests go through the same secret path as a real team. Without PostgreSQL the
team tests skip, unless AKW_TEAM_REQUIRE_PG=1 (CI) makes that a failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from team_pg import PASSWORD, Cluster, bindir_of_postgres

from warehouse.team.scratch_pg import scratch_cluster


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    if bindir_of_postgres() is None:
        if os.environ.get("AKW_TEAM_REQUIRE_PG") == "1":
            pytest.fail("PostgreSQL is not installed (apt-get install -y postgresql)")
        pytest.skip("PostgreSQL is not installed: the team tests need it (see README, team tests)")
    with scratch_cluster(PASSWORD) as cl:
        yield cl


@pytest.fixture()
def team_catalog(pg_cluster: Cluster, tmp_path: Path) -> dict[str, str]:
    """A fresh catalog database and data path for one test; env carries the pgpass file, never the password."""
    db = pg_cluster.createdb()
    return {"db": db, "dsn": pg_cluster.dsn(db), "data_path": str(tmp_path / "team-data"),
            "passfile": str(pg_cluster.passfile)}
