"""The small SQLite stores that count beside the index (access counters, usage metrics): how they open and
how a batch is written.

Both are best effort and off the response path: WAL, no fsync per write (a lost increment after a crash is
harmless), 0600 from the first byte; a batch is one transaction on the background writer thread, a locked
store is retried for a while and then the batch is dropped (logged), and no failure reaches the reader.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path


def connect(f: Path, schema: Sequence[str], secure_delete: bool = False) -> sqlite3.Connection:
    """Open (creating it 0600 in a 0700 folder) and make sure `schema` exists; `secure_delete` zeroes the
    bytes of deleted rows (a store that forget must prove empty of an id)."""
    f.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fresh = not f.exists()
    con = sqlite3.connect(f, timeout=0.5)
    try:
        if fresh:
            os.chmod(f, 0o600)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=OFF")
        if secure_delete:
            con.execute("PRAGMA secure_delete=ON")
        for ddl in schema:
            con.execute(ddl)
    except BaseException:
        con.close()
        raise
    return con


def write_batch(f: Path, schema: Sequence[str], apply: Callable[[sqlite3.Connection], None], retry_s: float,
                log: logging.Logger, what: str, secure_delete: bool = False) -> None:
    """Run `apply(con)` in one transaction; a locked store is retried for `retry_s`, any other failure (or the
    end of the retries) drops the batch with a warning naming `what` (never its content)."""
    deadline = time.monotonic() + retry_s
    while True:
        try:
            con = connect(f, schema, secure_delete)
            try:
                with con:
                    apply(con)
            finally:
                con.close()
            return
        except sqlite3.OperationalError as e:
            if ("locked" not in str(e) and "busy" not in str(e)) or time.monotonic() > deadline:
                log.warning("%s not updated: %s", what, type(e).__name__)
                return
            time.sleep(0.05)
        except (OSError, sqlite3.Error) as e:  # counting is best effort: the read already answered
            log.warning("%s not updated: %s", what, type(e).__name__)
            return
