"""AutoClaw extractor: `accounts/<account>/runtime/runtime.sqlite` -> `bronze/autoclaw/ac_*`.

Units: `<account>` (the database itself: open, schema, `ac_accounts` row) and
`<account>:<table>` per source table (see autoclaw_sync for the incremental parts scheme).
The database is opened strictly read-only (autoclaw_open), all tables of an account are read
from one snapshot, and an account whose database file and `-wal` have the same size and mtime
as last time is not even opened. A locked database is retried with backoff
(KNOWLEDGE_SOURCE_LOCKED after the last try), a file that is not SQLite is
KNOWLEDGE_SOURCE_CORRUPT, a missing table/column is KNOWLEDGE_SOURCE_SCHEMA_UNSUPPORTED for that
table only; one account's failure never stops another. A missing root is no AutoClaw at all:
nothing is recorded and the lake keeps what it has (only the zero-row `_schema` files are
ensured, so models can always read every ac_* table).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import polars as pl

from warehouse.core.errors import Code, KnowledgeError
from warehouse.extract.autoclaw import exclude
from warehouse.extract.autoclaw.sqlite_open import (
    OpenPolicy,
    Source,
    error_code,
    file_stat,
    open_source,
    retry,
    sha256_file,
    signature,
)
from warehouse.extract.autoclaw.sync import DbInfo, drop_parts, inspect, part_numbers, sync_table, unit_fresh
from warehouse.extract.autoclaw.tables import ACCOUNTS_SCHEMA, ACCOUNTS_TABLE, SPECS, lake_schema
from warehouse.extract.base import ExtractContext, SourceReport, redaction_sig
from warehouse.home.lake import unit_key

SOURCE = "autoclaw"
EXTRACTOR_VERSION = "autoclaw-1"  # bump when row shapes change: every unit is rewritten
POLICY = OpenPolicy()  # module-level so tests (and a slow disk) can tune busy handling
DB_REL = Path("runtime") / "runtime.sqlite"
TABLES = {**{spec.lake: lake_schema(spec.schema) for spec in SPECS}, ACCOUNTS_TABLE: lake_schema(ACCOUNTS_SCHEMA)}


def discover(root: Path) -> list[tuple[str, Path]]:
    """(account, db path) for every account folder holding a runtime.sqlite, sorted by account."""
    accounts = root / "accounts"
    if not accounts.is_dir():
        return []
    return [(d.name, d / DB_REL) for d in sorted(accounts.iterdir()) if (d / DB_REL).is_file()]


def config_fingerprint(ctx: ExtractContext) -> str:
    ex = ctx.settings.exclude
    payload = [EXTRACTOR_VERSION, sorted(ex.workspaces), sorted(ex.sessions), sorted(ex.actors),
               *redaction_sig(ctx.settings), ctx.privacy_sig()]
    return hashlib.sha1(json.dumps(payload).encode()).hexdigest()[:16]


def extract(ctx: ExtractContext) -> SourceReport:
    """Extract every account of the AutoClaw root, incrementally."""
    rep = SourceReport(source=SOURCE)
    for table, schema in TABLES.items():
        ctx.lake.ensure_table(SOURCE, table, schema)
    root = ctx.paths.autoclaw_root
    if not root.is_dir():
        return rep
    accounts = discover(root)
    for account, db in accounts:
        try:
            _account(ctx, rep, account, db)
        except Exception as e:  # isolation: a bug on one account never stops the others
            rep.degraded = True
            ctx.unit_failed(rep, account, Code.INTERNAL.value, f"{type(e).__name__}: {e}")
        ctx.tick(SOURCE, 1, len(accounts))
    _cleanup(ctx, rep, {a for a, _ in accounts})
    _warn_copied_accounts(ctx, rep)
    return rep


def _warn_copied_accounts(ctx: ExtractContext, rep: SourceReport) -> None:
    """Session ids are UUIDs of one account's database: an account holding another's means a copied
    account folder (`cp -a accounts/A accounts/A-copy`). Both are indexed (ids carry the account, so
    nothing collides), and the copy is named, since its work now shows twice (issue 25)."""
    files = sorted(ctx.lake.table_dir(SOURCE, "ac_sessions").glob("*.parquet"))
    frames = [pl.read_parquet(f, columns=["account", "session_id"]) for f in files if f.name != "_schema.parquet"]
    frames = [f for f in frames if f.height]
    if not frames:
        return
    pairs = pl.concat(frames).unique().sort("account")
    first = pairs.group_by("session_id").agg(pl.col("account").min().alias("original"))
    copied = (pairs.join(first, on="session_id").filter(pl.col("account") != pl.col("original"))
              .group_by("account", "original").agg(pl.len().alias("sessions")).sort("account", "original"))
    for account, original, n in copied.iter_rows():
        rep.warnings.append({"code": Code.SOURCE_CORRUPT.value, "unit": account,
                             "message": f"account {account} holds {n} session(s) of account {original}: a copied "
                                        "account folder? Its work is indexed twice; move the copy out of the "
                                        "AutoClaw root if it is one"})


def _account(ctx: ExtractContext, rep: SourceReport, account: str, db: Path) -> None:
    raw = ctx.store.cursor(account)
    cur: dict[str, Any] = raw if isinstance(raw, dict) else {}
    key, config = unit_key(account), config_fingerprint(ctx)
    stat = signature(db, ("-wal",))
    rep.units_seen += 1
    state = ctx.store.units.get(account, {})
    if (cur.get("stat") == stat and cur.get("config") == config and state.get("status") == "ok"
            and (ctx.lake.table_dir(SOURCE, ACCOUNTS_TABLE) / f"{key}.parquet").exists()
            and _retention_fresh(ctx, cur) and unit_fresh(ctx, account, key, config)):
        rep.units_seen += len(SPECS)
        rep.units_unchanged += 1 + len(SPECS)
        _warn_unread_wal(rep, account, cur)
        return
    try:
        part = retry(POLICY, lambda: _read_account(ctx, account, db, key, cur, config))
    except (KnowledgeError, sqlite3.Error, OSError) as e:
        if isinstance(e, KnowledgeError):
            code, msg = e.code, e.message
        elif isinstance(e, OSError):
            code, msg = Code.SOURCE_UNAVAILABLE.value, f"runtime.sqlite: {e.strerror or e}"
        else:
            code, msg = error_code(e), f"runtime.sqlite: {e}"
        rep.degraded = True
        ctx.unit_failed(rep, account, code, f"{account}: {msg}")
        return
    _merge(rep, part)
    ctx.store.set_cursor(account, {**(ctx.store.cursor(account) or {}), "stat": stat, "config": config})
    _warn_unread_wal(rep, account, ctx.store.cursor(account) or {})


def _warn_unread_wal(rep: SourceReport, account: str, cur: dict[str, Any]) -> None:
    """A `-wal` without its `-shm` (left by a crash) is opened immutable (sqlite_open): its committed
    frames are not seen until AutoClaw opens the database again. The unit stays `ok` with what it read,
    and every run says what it could not (issue 25: the unit said `ok` and nothing more)."""
    if cur.get("unread_wal_bytes"):
        rep.warnings.append({"code": Code.SOURCE_UNAVAILABLE.value, "unit": account,
                             "message": f"runtime.sqlite-wal ({cur['unread_wal_bytes']} bytes) has no -shm beside "
                                        "it (left by a crash?): changes committed there are not read until "
                                        "AutoClaw opens the database again"})


def _read_account(ctx: ExtractContext, account: str, db: Path, key: str, cur: dict[str, Any],
                  config: str) -> SourceReport:
    """One attempt over one read snapshot; a fresh report so a retried attempt is not double counted."""
    part = SourceReport(source=SOURCE)
    src = open_source(db, POLICY)
    try:
        info = inspect(src.conn)
        ex = exclude.resolve(ctx, src.conn, info.columns)
        expired = exclude.expired_sessions(ctx, src.conn, info.columns) - ex.sessions
        part.units_expired += len(expired - set(cur.get("expired", [])))
        ex.sessions |= expired
        # a session back inside the window (retention_days raised) was never read by the table cursors
        force_full = _excluded_in_lake(ctx, key, ex) or bool(set(cur.get("expired", [])) - ex.sessions)
        for spec in SPECS:
            sync_table(ctx, part, src, account, key, spec, info, ex, config, force_full)
        acc = _account_row(ctx, part, src, account, db, key, info, cur)
        acc["oldest_ms"] = exclude.newest_expiry_ms(src.conn, info.columns, ex.sessions)
        wal = src.sig[1] if src.access == "immutable" else None
        acc["unread_wal_bytes"] = wal[0] if wal and wal[0] > 0 else 0
    finally:
        src.close()
    acc["expired"] = sorted(expired)  # so a session is counted once, the run it leaves the window
    acc["cutoff_ms"] = ctx.retention_cutoff_ms
    ctx.unit_ok(part, account, acc["sha256"][:16], counts={"tables": len(info.tables)},
                schema_version=info.version, cursor=acc)
    return part


def _excluded_in_lake(ctx: ExtractContext, key: str, ex: exclude.Exclusions) -> bool:
    """An id excluded now (new setting, a session moved workspace) still has rows: rewrite everything."""
    for table, col, ids in (("ac_sessions", "session_id", ex.sessions), ("ac_agents", "agent_id", ex.agents)):
        if not ids:
            continue
        files = [ctx.lake.table_dir(SOURCE, table) / f"{key}-{n:06d}.parquet" for n in
                 sorted(part_numbers(ctx, table, key))]
        if files and pl.read_parquet(files, columns=[col])[col].is_in(sorted(ids)).any():
            return True
    return False


def _retention_fresh(ctx: ExtractContext, cur: dict[str, Any]) -> bool:
    """No session crossed the retention cutoff since the last read (in either direction)."""
    if cur.get("expired"):
        return cur.get("cutoff_ms") == ctx.retention_cutoff_ms
    return not ctx.expired(cur.get("oldest_ms"))


def _account_row(ctx: ExtractContext, rep: SourceReport, src: Source, account: str, db: Path, key: str,
                 info: DbInfo, cur: dict[str, Any]) -> dict[str, Any]:
    """The `ac_accounts` row; the 1 GB file is re-hashed only when its size or mtime moved."""
    st = file_stat(db) or [0, 0]
    sha = cur["sha256"] if cur.get("hashed") == st and cur.get("sha256") else sha256_file(db)
    journal = src.journal if src.journal == "wal" else str(src.conn.execute("PRAGMA journal_mode").fetchone()[0])
    root = ctx.paths.autoclaw_root
    row = {"db_rel_path": db.relative_to(root).as_posix(), "db_size": st[0], "db_mtime_ns": st[1], "db_sha256": sha,
           "schema_version": info.version, "schema_migration_name": info.migration, "tables_present": info.tables,
           "journal_mode": journal}
    digest = hashlib.sha1(json.dumps(row, sort_keys=True).encode()).hexdigest()
    seq = int(cur.get("seq", 0))
    if digest != cur.get("row") or not (ctx.lake.table_dir(SOURCE, ACCOUNTS_TABLE) / f"{key}.parquet").exists():
        seq += 1
        frame = pl.DataFrame([{"account": account, "extracted_seq": seq, **row}], schema=lake_schema(ACCOUNTS_SCHEMA))
        rep.add_rows(ACCOUNTS_TABLE, ctx.lake.write_unit(SOURCE, ACCOUNTS_TABLE, key, frame))
        rep.units_changed += 1
    else:
        rep.units_unchanged += 1
    return {"hashed": st, "sha256": sha, "row": digest, "seq": seq}


def _merge(rep: SourceReport, part: SourceReport) -> None:
    rep.units_seen += part.units_seen
    rep.units_changed += part.units_changed
    rep.units_unchanged += part.units_unchanged
    rep.units_failed += part.units_failed
    rep.units_expired += part.units_expired
    for table, n in part.rows.items():
        rep.add_rows(table, n)
    rep.errors += part.errors
    rep.degraded = rep.degraded or part.degraded


def _cleanup(ctx: ExtractContext, rep: SourceReport, live: set[str]) -> None:
    """Accounts whose folder or database vanished: forget their units and drop their lake files."""
    for account in sorted({u.partition(":")[0] for u in ctx.store.known_units()} - live):
        key = unit_key(account)
        for spec in SPECS:
            drop_parts(ctx, spec.lake, key)
        ctx.lake.write_unit(SOURCE, ACCOUNTS_TABLE, key, pl.DataFrame())
        for unit in sorted(u for u in ctx.store.known_units() if u.partition(":")[0] == account):
            rep.units_removed += 1
            ctx.store.forget(unit)
