"""The throwaway PostgreSQL cluster of the team tests: where its binaries are, and its client tools."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

PASSWORD = "team-test-" + uuid.uuid4().hex[:12]


def bindir_of_postgres() -> Path | None:
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
