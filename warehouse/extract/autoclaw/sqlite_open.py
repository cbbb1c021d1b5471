"""Open an AutoClaw `runtime.sqlite` strictly read-only, without changing a byte of its file set.

Plain `mode=ro` is not enough (measured on SQLite 3.40): on a WAL database it creates the
`-wal`/`-shm` files when they are missing and writes reader marks into an existing `-shm`.
So the access mode is chosen from the file header and the side files present:

- rollback-journal database -> `mode=ro`: shared locks only, creates nothing;
- WAL with a `-wal` file -> `mode=ro&readonly_shm=1`: sees committed WAL frames, leaves `-shm`
  alone; a live writer in exclusive locking mode answers "database is locked" (busy);
- WAL without `-wal` (the app closed cleanly), or a `-wal` without `-shm` that SQLite cannot open
  (left by a crash) -> `mode=ro&immutable=1`: no locks and no side files. That is only safe while
  nobody writes, so `Source.check_stable()` compares the file signature before every lake write and
  a change counts as busy (retried). Frames of a crashed app's stale `-wal` are not seen until the
  app opens the database again.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from warehouse.core.errors import Code, KnowledgeError

T = TypeVar("T")
SQLITE_MAGIC = b"SQLite format 3\x00"
SIDE_FILES = ("-wal", "-shm", "-journal")


@dataclass(frozen=True)
class OpenPolicy:
    """Busy handling: per-statement busy timeout, then `tries` attempts with exponential backoff."""

    busy_timeout_s: float = 2.0
    tries: int = 3
    backoff_s: float = 0.25


class SourceBusy(Exception):
    """The database is locked by a writer, or changed under an `immutable` read."""


def classify(e: sqlite3.Error) -> str:
    """busy | corrupt | cantopen | other, from the SQLite error name (message as fallback)."""
    name = getattr(e, "sqlite_errorname", "") or ""
    msg = str(e).lower()
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in msg or "busy" in msg:
        return "busy"
    if name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")) or "not a database" in msg or "malformed" in msg:
        return "corrupt"
    if name.startswith("SQLITE_CANTOPEN"):
        return "cantopen"
    return "other"


def error_code(e: BaseException) -> str:
    """The stable code for a failure while reading a source database."""
    if isinstance(e, SourceBusy):
        return Code.SOURCE_LOCKED.value
    kind = classify(e) if isinstance(e, sqlite3.Error) else "other"
    return {"busy": Code.SOURCE_LOCKED, "corrupt": Code.SOURCE_CORRUPT}.get(kind, Code.SOURCE_UNAVAILABLE).value


def file_stat(path: Path) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def signature(db: Path, sides: tuple[str, ...] = SIDE_FILES) -> list[list[int] | None]:
    """(size, mtime_ns) of the database and its side files; None for an absent file."""
    return [file_stat(db), *(file_stat(Path(f"{db}{s}")) for s in sides)]


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def read_header(db: Path) -> str:
    """'wal' or 'rollback' from the 100-byte header; raises SOURCE_CORRUPT for anything else."""
    with open(db, "rb") as fh:
        head = fh.read(100)
    if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
        raise KnowledgeError(Code.SOURCE_CORRUPT, "runtime.sqlite is not an SQLite database")
    return "wal" if head[18] == 2 or head[19] == 2 else "rollback"


@dataclass
class Source:
    """An open read-only connection plus what is needed to prove it stayed read-only."""

    db: Path
    conn: sqlite3.Connection
    access: str  # ro | ro-shm | immutable
    journal: str  # wal | rollback
    sig: list[list[int] | None]

    def check_stable(self) -> None:
        if self.access == "immutable" and signature(self.db) != self.sig:
            raise SourceBusy("the database changed during an immutable read")

    def close(self) -> None:
        self.conn.close()


def lenient_text(raw: bytes) -> str:
    """Text factory for a table holding invalid UTF-8 (slower than the C default, so used on demand)."""
    return raw.decode("utf-8", "replace")


def _connect(db: Path, query: str, timeout: float) -> sqlite3.Connection:
    conn = sqlite3.connect(f"{db.absolute().as_uri()}?{query}", uri=True, timeout=timeout, isolation_level=None)
    try:
        conn.execute("PRAGMA query_only = 1")
        conn.execute("BEGIN")  # one read snapshot for the whole account
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # takes the read lock now
    except BaseException:
        conn.close()
        raise
    return conn


def open_source(db: Path, policy: OpenPolicy) -> Source:
    """Open once (no retry here; see `retry`). Raises SourceBusy, KnowledgeError or sqlite3.Error."""
    if not db.is_file():
        raise KnowledgeError(Code.SOURCE_UNAVAILABLE, "runtime.sqlite not found")
    journal = read_header(db)
    sig = signature(db)
    has_wal, has_shm = sig[1] is not None, sig[2] is not None
    if journal == "rollback":
        access, query = "ro", "mode=ro"
    elif has_wal:
        access, query = "ro-shm", "mode=ro&readonly_shm=1"
    else:
        access, query = "immutable", "mode=ro&immutable=1"
    try:
        conn = _connect(db, query, policy.busy_timeout_s)
    except sqlite3.Error as e:
        kind = classify(e)
        if kind == "busy":
            raise SourceBusy(str(e)) from e
        if not (kind == "cantopen" and access == "ro-shm" and not has_shm):
            raise
        access = "immutable"  # stale -wal without -shm: no live writer could be using it
        conn = _connect(db, "mode=ro&immutable=1", policy.busy_timeout_s)
    src = Source(db, conn, access, journal, sig)
    try:
        src.check_stable()
    except SourceBusy:
        src.close()
        raise
    return src


def retry(policy: OpenPolicy, fn: Callable[[], T], sleep: Callable[[float], None] = time.sleep) -> T:
    """Call fn; on busy retry with exponential backoff; after `tries` raise SOURCE_LOCKED."""
    for attempt in range(policy.tries):
        try:
            return fn()
        except (SourceBusy, sqlite3.OperationalError) as e:
            if not isinstance(e, SourceBusy) and classify(e) != "busy":
                raise
            if attempt == policy.tries - 1:
                raise KnowledgeError(Code.SOURCE_LOCKED,
                                     f"runtime.sqlite stayed locked after {policy.tries} attempts") from e
            sleep(policy.backoff_s * (2 ** attempt))
    raise AssertionError("unreachable")
