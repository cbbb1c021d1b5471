"""A throwaway PostgreSQL cluster for the team tests: one per session, on a Unix socket in a temp dir.

Real PostgreSQL (Debian's `postgresql` package), started as an unprivileged user (initdb refuses
root: under root it runs as `nobody`), password authentication (scram) with the password only in a
pgpass file, so the tests go through the same secret path as a real team. Without PostgreSQL the
team tests skip, unless AKW_TEAM_REQUIRE_PG=1 (CI) makes that a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from team_pg import PASSWORD, Cluster, bindir_of_postgres


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    bindir = bindir_of_postgres()
    if bindir is None:
        if os.environ.get("AKW_TEAM_REQUIRE_PG") == "1":
            pytest.fail("PostgreSQL is not installed (apt-get install -y postgresql)")
        pytest.skip("PostgreSQL is not installed: the team tests need it (see README, team tests)")
    root = Path(tempfile.mkdtemp(prefix="akw-pg-"))
    as_user: tuple[str, ...] = ()
    if os.geteuid() == 0:  # initdb refuses root: run the server as nobody, in a folder it owns
        as_user = ("runuser", "-u", "nobody", "--")
        os.chown(root, 65534, 65534)
    os.chmod(root, 0o711)
    pwfile = root / "pw"
    pwfile.write_text(PASSWORD + "\n")
    passfile = root / "pgpass"
    passfile.write_text(f"*:*:*:akw:{PASSWORD}\n")
    os.chmod(passfile, 0o600)
    if as_user:
        os.chown(pwfile, 65534, 65534)
    cl = Cluster(bindir, root, passfile, as_user)
    data = root / "data"
    cl.server("initdb", "-D", str(data), "-U", "akw", "-A", "scram-sha-256", f"--pwfile={pwfile}", "--no-sync",
           "-E", "UTF8", "--locale=C")
    pwfile.unlink()
    cl.server("pg_ctl", "-D", str(data), "-l", str(root / "log"), "-w", "-o",
           f"-k {root} -c listen_addresses='' -c fsync=off -c max_connections=50", "start")
    try:
        yield cl
    finally:
        subprocess.run([*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                       capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture()
def team_catalog(pg_cluster: Cluster, tmp_path: Path) -> dict[str, str]:
    """A fresh catalog database and data path for one test; env carries the pgpass file, never the password."""
    db = pg_cluster.createdb()
    return {"db": db, "dsn": pg_cluster.dsn(db), "data_path": str(tmp_path / "team-data"),
            "passfile": str(pg_cluster.passfile)}
