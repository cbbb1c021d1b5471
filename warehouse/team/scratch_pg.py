"""A throwaway PostgreSQL cluster (Debian's `postgresql` binaries) for `akw bench --team` and the team tests.

Started in a temp folder on a Unix socket only (no TCP), password authentication (scram) with the
password only in a pgpass file, so bench and tests go through the same secret path as a real team.
initdb refuses root: under root the server runs as `nobody` (`runuser`), in a folder it owns.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from warehouse.core.errors import Code, KnowledgeError

NOBODY = 65534


def bindir_of_postgres() -> Path | None:
    """Where initdb/pg_ctl are: Debian's /usr/lib/postgresql/<v>/bin (newest), else the PATH."""
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
    password: str = ""

    def run(self, tool: str, *args: str) -> subprocess.CompletedProcess[str]:
        """A client tool, as the caller's own user (the password from the pgpass file)."""
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


@contextmanager
def scratch_cluster(password: str | None = None) -> Iterator[Cluster]:
    """Start a cluster, yield it, stop it and delete its folder. No PostgreSQL: KNOWLEDGE_CATALOG_UNAVAILABLE."""
    bindir = bindir_of_postgres()
    if bindir is None:
        raise KnowledgeError(Code.CATALOG_UNAVAILABLE, "no PostgreSQL to start a scratch catalog in "
                             "(apt-get install -y postgresql), and no --catalog DSN given", field="catalog")
    password = password or "scratch-" + uuid.uuid4().hex[:16]
    root = Path(tempfile.mkdtemp(prefix="akw-pg-"))
    as_user: tuple[str, ...] = ()
    if os.geteuid() == 0:  # initdb refuses root: run the server as nobody, in a folder it owns
        as_user = ("runuser", "-u", "nobody", "--")
        os.chown(root, NOBODY, NOBODY)
    os.chmod(root, 0o711)
    data = root / "data"
    cl = Cluster(bindir, root, root / "pgpass", as_user, password)
    try:
        _start(cl, data)
    except subprocess.CalledProcessError as e:
        shutil.rmtree(root, ignore_errors=True)
        tail = (e.stderr or e.stdout or "")[-500:]
        raise KnowledgeError(Code.CATALOG_UNAVAILABLE, f"the scratch PostgreSQL cluster did not start: {tail}",
                             field="catalog") from None
    try:
        yield cl
    finally:
        subprocess.run([*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                       capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def _start(cl: Cluster, data: Path) -> None:
    """initdb (the password from a file the server user reads once) and pg_ctl start on a socket only."""
    pwfile = cl.socket_dir / "pw"
    pwfile.write_text(cl.password + "\n")
    os.chmod(pwfile, 0o600)
    if cl.as_user:
        os.chown(pwfile, NOBODY, NOBODY)
    cl.passfile.write_text(f"*:*:*:akw:{cl.password}\n")
    os.chmod(cl.passfile, 0o600)
    cl.server("initdb", "-D", str(data), "-U", "akw", "-A", "scram-sha-256", f"--pwfile={pwfile}", "--no-sync",
              "-E", "UTF8", "--locale=C")
    pwfile.unlink()
    cl.server("pg_ctl", "-D", str(data), "-l", str(cl.socket_dir / "log"), "-w", "-o",
              f"-k {cl.socket_dir} -c listen_addresses='' -c fsync=off -c max_connections=50", "start")
