"""A throwaway PostgreSQL cluster for the team tests: one per session, on a Unix socket in a temp dir.

Real PostgreSQL (Debian's `postgresql` package), started as an unprivileged user (initdb refuses
root: under root it runs as `nobody`), password authentication (scram) with the password only in a
pgpass file, so the tests go through the same secret path as a real team. Without PostgreSQL the
team tests skip, unless AKW_TEAM_REQUIRE_PG=1 (CI) makes that a failure.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PASSWORD = "team-test-" + uuid.uuid4().hex[:12]


def _bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    exe = shutil.which("initdb")
    return Path(exe).parent if exe else None


@dataclass(frozen=True)
class Cluster:
    bindir: Path
    socket_dir: Path
    passfile: Path
    as_user: tuple[str, ...]

    def run(self, tool: str, *args: str) -> subprocess.CompletedProcess[str]:
        """A client tool, as the test's own user (the password from the pgpass file)."""
        env = {**os.environ, "PGPASSFILE": str(self.passfile)}
        return subprocess.run([str(self.bindir / tool), *args], check=True, capture_output=True, text=True, env=env)

    def server(self, tool: str, *args: str) -> subprocess.CompletedProcess[str]:
        """initdb / pg_ctl, as the unprivileged server user."""
        return subprocess.run([*self.as_user, str(self.bindir / tool), *args], check=True, capture_output=True,
                              text=True)

    def createdb(self) -> str:
        name = "akw_" + uuid.uuid4().hex[:10]
        self.run("createdb", "-h", str(self.socket_dir), "-U", "akw", name)
        return name

    def dsn(self, db: str) -> str:
        return f"dbname={db} host={self.socket_dir} user=akw"

    def dump(self, db: str) -> str:
        return self.run("pg_dump", "-h", str(self.socket_dir), "-U", "akw", db).stdout


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    bindir = _bindir()
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
