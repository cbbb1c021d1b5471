"""The `ak_trust` side table (issue 16): one trust score per entity, written by the curation pass.

It lives in `AKW_HOME/access/trust.sqlite`, beside the access counter and outside the generations:
a trust score depends on the counter and on the clock (decay), and a generation must depend only on
what decides `index_rev` (same input, same content). Each pass writes a new file and swaps it in
(`os.replace`), so a reader sees one whole pass or the previous one, and replaced rows leave no bytes.
`trust_meta` records what the pass read (generation rev, counter signature, clock), so a no-op
reindex decides with one small read whether to run it again (pipeline/curation.py).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from warehouse.core.paths import Paths, file_signature

COLUMNS = ("entity_id", "kind", "trust_score", "authority", "outcome", "hits", "last_accessed_at", "computed_at")
SCHEMA = ("CREATE TABLE ak_trust (entity_id TEXT PRIMARY KEY, kind TEXT NOT NULL, trust_score REAL NOT NULL, "
          "authority REAL NOT NULL, outcome REAL NOT NULL, hits INTEGER NOT NULL, last_accessed_at TEXT, "
          "computed_at TEXT NOT NULL)",
          "CREATE TABLE trust_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


def store_file(paths: Paths) -> Path:
    return paths.trust_store


def _open_ro(f: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{f}?mode=ro", uri=True, timeout=0.5)


def write(paths: Paths, rows: Iterable[tuple], meta: dict[str, str]) -> int:
    """Replace the table with `rows` (COLUMNS order) and `meta`; returns the row count."""
    f = store_file(paths)
    f.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = f.with_name(f"{f.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    con = sqlite3.connect(tmp)
    try:
        os.chmod(tmp, 0o600)
        con.execute("PRAGMA journal_mode=OFF")  # a new file swapped in whole: no journal needed
        con.execute("PRAGMA synchronous=OFF")
        for stmt in SCHEMA:
            con.execute(stmt)
        cur = con.executemany(f"INSERT INTO ak_trust VALUES ({', '.join('?' * len(COLUMNS))})", rows)
        n = cur.rowcount
        con.executemany("INSERT INTO trust_meta VALUES (?, ?)", sorted(meta.items()))
        con.commit()
    finally:
        con.close()
    os.replace(tmp, f)
    return max(n, 0)


def read_meta(paths: Paths) -> dict[str, str]:
    """What the last pass read; empty when there is no table (or it cannot be read: then it is rebuilt)."""
    f = store_file(paths)
    if not f.exists():
        return {}
    try:
        con = _open_ro(f)
        try:
            return dict(con.execute("SELECT key, value FROM trust_meta").fetchall())
        finally:
            con.close()
    except sqlite3.Error:
        return {}


def read(paths: Paths, non_neutral: bool = False) -> dict[str, tuple]:
    """entity_id -> the row (COLUMNS order); `non_neutral`: only rows whose score is not 0.5 (the prior is
    exactly 1 at 0.5, so ranking needs no other)."""
    f = store_file(paths)
    if not f.exists():
        return {}
    where = " WHERE trust_score <> 0.5" if non_neutral else ""
    con = _open_ro(f)
    try:
        return {r[0]: r for r in con.execute(f"SELECT {', '.join(COLUMNS)} FROM ak_trust{where} ORDER BY entity_id")}
    finally:
        con.close()


def signature(paths: Paths) -> tuple[int, int, int] | None:
    """A search engine re-reads the table only when this changes (paths.file_signature)."""
    return file_signature(store_file(paths))


def forget_items(paths: Paths, item_ids: set[str]) -> int:
    """Forgotten entities lose their trust row (a forget hook); returns how many rows went."""
    f = store_file(paths)
    if not item_ids or not f.exists():
        return 0
    con = sqlite3.connect(f, timeout=0.5)
    try:
        con.execute("PRAGMA secure_delete=ON")
        with con:
            n = con.executemany("DELETE FROM ak_trust WHERE entity_id = ?", [(i,) for i in sorted(item_ids)]).rowcount
        con.execute("VACUUM")  # forget proves no residue by raw bytes: rewrite the file
        return max(n, 0)
    finally:
        con.close()
