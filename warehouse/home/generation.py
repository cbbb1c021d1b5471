"""Crash-safe index generations and the single-writer lock.

A build writes `generations/.building-<rev>-<pid>.duckdb`, closes it, renames it to
`gen-<seq>-<rev>.duckdb`, then atomically replaces the `CURRENT` pointer file. Readers resolve
`CURRENT` and open that file read-only, so they only ever see a complete generation; a crash
(even kill -9) before the pointer swap leaves the previous generation published. The previous
generation is kept after a publish (readers may still hold it); older ones are removed.
The writer lock is an `flock` on `akw.lock`: the kernel drops it if the holder dies.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from warehouse.core import db, literals
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.paths import Paths, private_dir
from warehouse.home import spill

POINTER = "CURRENT"


@dataclass(frozen=True)
class Generation:
    path: Path
    index_rev: str
    seq: int
    published_at: str


def current(generations: Path) -> Generation | None:
    ptr = generations / POINTER
    try:
        data = json.loads(ptr.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    path = generations / data["file"]
    if not path.exists():
        return None
    return Generation(path, data["index_rev"], int(data["seq"]), data["published_at"])


def discard_stale_builds(generations: Path) -> None:
    """Remove leftovers of a crashed build (its file, WAL and DuckDB spill folder `….duckdb.tmp`);
    call only while holding the writer lock."""
    for stale in generations.glob(".building-*"):
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            stale.unlink(missing_ok=True)


def new_build_path(generations: Path, index_rev: str) -> Path:
    private_dir(generations)
    discard_stale_builds(generations)
    return generations / f".building-{index_rev}-{os.getpid()}.duckdb"


def publish(generations: Path, build_path: Path, index_rev: str, published_at: str) -> Generation:
    prev = current(generations)
    seq = (prev.seq + 1) if prev else 1
    final = generations / f"gen-{seq:06d}-{index_rev}.duckdb"
    fsync_path(build_path)
    os.chmod(build_path, 0o600)
    build_path.replace(final)
    tmp = generations / f".{POINTER}.tmp"
    tmp.write_text(json.dumps({"file": final.name, "index_rev": index_rev, "seq": seq,
                               "published_at": published_at}, sort_keys=True), encoding="utf-8")
    os.chmod(tmp, 0o600)
    fsync_path(tmp)
    tmp.replace(generations / POINTER)
    fsync_path(generations)  # make the rename durable
    keep = {final.name} | ({prev.path.name} if prev else set())
    for old in generations.glob("gen-*.duckdb"):
        if old.name not in keep:
            db.remove_files(old)
    return Generation(final, index_rev, seq, published_at)


# The one reader policy of a process: DuckDB keeps one configuration per database file per process,
# so search, cards, dispatch and `akw sql` all open the published generation with these settings.
READER_MEMORY = "100MB"  # buffer pool of a search process: the hot index pages; RSS stays < 300 MB at 1M
READER_THREADS = 1  # one thread: small statements pay twice the CPU with a second worker (measured)
DEFAULT_SPILL_LIMIT = "2GB"  # `query.spill_limit`: the most one process may spill under `spill/`


def open_current(generations: Path, spill_limit: str | None = None) -> tuple[duckdb.DuckDBPyConnection, Generation]:
    """Open the published generation read-only with the reader policy; KNOWLEDGE_NOT_READY if none exists yet.

    Spills go to this process's own folder `$AKW_HOME/spill/<pid>-…` (warehouse.home.spill), never to a
    `<generation>.tmp` shared by every process. Once the index extension is loaded, file and network
    access from SQL is switched off for the whole database instance."""
    temp = spill.folder(generations.parent / "spill")
    for _ in range(3):  # a publish may swap the pointer between our read and our open
        gen = current(generations)
        if gen is None:
            raise KnowledgeError(Code.NOT_READY, "no index generation is published yet (run `akw reindex`)")
        try:
            con = db.connect(gen.path, read_only=True, memory_limit=READER_MEMORY, threads=READER_THREADS,
                             temp_directory=str(temp))
        except duckdb.IOException:
            time.sleep(0.05)
            continue
        con.execute("SET enable_external_access = false")
        if spill_limit:
            con.execute(f"SET max_temp_directory_size = {literals.text(spill_limit)}")
        return con, gen
    raise KnowledgeError(Code.NOT_READY, "could not open the published generation")


@contextmanager
def writer_lock(paths: Paths, wait_s: float = 0.0) -> Iterator[None]:
    """One writer at a time. Waits up to `wait_s`, then KNOWLEDGE_INDEX_LOCKED."""
    paths.home.mkdir(parents=True, exist_ok=True)
    fd = os.open(paths.writer_lock, os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + wait_s
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise KnowledgeError(Code.LOCKED, "another reindex holds the writer lock") from None
                time.sleep(0.1)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        os.close(fd)  # closing releases the flock


def fsync_path(path: Path) -> None:
    """fsync a file or a directory (for a directory it makes renames inside it durable)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
