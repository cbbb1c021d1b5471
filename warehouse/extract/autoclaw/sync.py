"""Incremental sync of one AutoClaw table of one account (`<account>:<table>`) into lake parts.

A unit's lake files are append-only parts `<key>-<n:06d>.parquet`; every row carries
`extracted_seq = n`, so the models keep the latest version per primary key. The cursor holds the
table's fingerprint (count, max(rowid), max of the watched timestamp columns), the parts written
since the last rewrite and the exclusion config. Same fingerprint -> nothing read or written;
larger -> only rows past the marks are read (new rowid, or a watched column past its old max,
which catches updated rows) and appended as a new part; smaller (rows deleted, DB replaced), lost
parts, new exclusion settings or an increment that cannot account for the new count -> the unit
is rewritten from scratch and its old parts dropped. A row deleted while others were added is not
noticed until such a rewrite (the models see it as still present).
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from dataclasses import dataclass
from typing import Any

import polars as pl

from warehouse.core.errors import Code
from warehouse.extract.autoclaw import exclude
from warehouse.extract.autoclaw.sqlite_open import Source, classify, error_code, lenient_text
from warehouse.extract.autoclaw.tables import SPECS, TableSpec, build_frame, lake_schema, q
from warehouse.extract.base import ExtractContext, SourceReport

SOURCE = "autoclaw"
CHUNK = 20_000
_PART = re.compile(r"-(\d{6})$")
_EMPTY = pl.DataFrame()


@dataclass(frozen=True)
class DbInfo:
    tables: list[str]  # every table of the database (sorted)
    columns: dict[str, set[str]]  # wanted tables that exist -> their columns
    rowid: dict[str, bool]
    version: str | None
    migration: str | None

    def problem(self, spec: TableSpec) -> str | None:
        if spec.source not in self.columns:
            return f"table {spec.source} is missing"
        missing = sorted(set(spec.required) - self.columns[spec.source])
        return f"{spec.source}: missing column(s) {', '.join(missing)}" if missing else None


def inspect(conn: sqlite3.Connection) -> DbInfo:
    """Tables, columns (PRAGMA table_info) and the latest schema migration."""
    rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' "
                        "ESCAPE '\\' ORDER BY name").fetchall()
    wanted = {s.source for s in SPECS} | {"schema_migrations"}
    columns = {t: {r[1] for r in conn.execute(f"PRAGMA table_info({q(t)})")} for t, _ in rows if t in wanted}
    rowid = {t: not re.search(r"without\s+rowid", sql or "", re.I) for t, sql in rows if t in columns}
    version = migration = None
    if {"sequence", "name"} <= columns.get("schema_migrations", set()):
        top = conn.execute("SELECT CAST(sequence AS TEXT), CAST(name AS TEXT) FROM schema_migrations "
                           "ORDER BY CAST(sequence AS INTEGER) DESC, sequence DESC LIMIT 1").fetchone()
        if top:
            version, migration = top
    return DbInfo([t for t, _ in rows], columns, rowid, version, migration)


# -- lake parts -------------------------------------------------------------------------
def part_numbers(ctx: ExtractContext, table: str, key: str) -> set[int]:
    out = set()
    for stem in ctx.lake.unit_keys(SOURCE, table):
        m = _PART.search(stem)
        if m and stem[: m.start()] == key:
            out.add(int(m.group(1)))
    return out


def part_stem(key: str, n: int) -> str:
    return f"{key}-{n:06d}"


def drop_parts(ctx: ExtractContext, table: str, key: str, keep: int | None = None) -> None:
    for n in part_numbers(ctx, table, key):
        if n != keep:
            ctx.lake.write_unit(SOURCE, table, part_stem(key, n), _EMPTY)  # an empty frame unlinks


# -- fingerprints ---------------------------------------------------------------------------
def _safe(v: Any) -> Any:
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


def fingerprint(conn: sqlite3.Connection, spec: TableSpec, has_rowid: bool) -> dict[str, Any]:
    aggs = ["count(*)", "max(rowid)" if has_rowid else "NULL", *(f"max({q(c)})" for c in spec.watch)]
    row = conn.execute(f"SELECT {', '.join(aggs)} FROM {q(spec.source)}").fetchone()
    return {"count": row[0], "rowid": row[1], "max": {c: _safe(v) for c, v in zip(spec.watch, row[2:], strict=True)}}


def _behind(new: Any, old: Any) -> bool:
    if old is None:
        return False
    if new is None or isinstance(new, str) != isinstance(old, str):
        return True
    return bool(new < old)


def regressed(prev: dict[str, Any], now: dict[str, Any]) -> bool:
    """Rows were deleted or the database was replaced: marks cannot be trusted any more."""
    if now["count"] < prev.get("count", 0) or _behind(now["rowid"], prev.get("rowid")):
        return True
    return any(_behind(now["max"].get(c), v) for c, v in prev.get("max", {}).items())


def increment_where(spec: TableSpec, prev: dict[str, Any], has_rowid: bool) -> tuple[str, list[Any]]:
    """Rows past the old marks: new rowids, or a watched timestamp after its old max (updates)."""
    conds: list[str] = []
    params: list[Any] = []
    if has_rowid:
        if prev.get("rowid") is None:
            return "", []
        conds.append("rowid > ?")
        params.append(prev["rowid"])
    for c in spec.watch:
        v = prev.get("max", {}).get(c)
        conds.append(f"{q(c)} IS NOT NULL" if v is None else f"{q(c)} > ?")
        params += [] if v is None else [v]
    return (" WHERE " + " OR ".join(conds), params) if conds else ("", [])


def read_rows(src: Source, spec: TableSpec, where: str, params: list[Any], has_rowid: bool, account: str,
              seq: int) -> tuple[pl.DataFrame, str]:
    """Select the spec's columns in chunks -> (lake frame, sha1 of the raw rows)."""
    try:
        return _read_rows(src, spec, where, params, has_rowid, account, seq)
    except sqlite3.OperationalError as e:
        if "decode" not in str(e) or src.conn.text_factory is lenient_text:
            raise
        src.conn.text_factory = lenient_text  # invalid UTF-8 somewhere: read again, replacing bad bytes
        return _read_rows(src, spec, where, params, has_rowid, account, seq)


def _read_rows(src: Source, spec: TableSpec, where: str, params: list[Any], has_rowid: bool, account: str,
               seq: int) -> tuple[pl.DataFrame, str]:
    sql = f"SELECT {', '.join(c.sql for c in spec.cols)} FROM {q(spec.source)}{where}"
    cur = src.conn.execute(sql + (" ORDER BY rowid" if has_rowid else ""), params)
    digest = hashlib.sha1()
    frames = []
    while rows := cur.fetchmany(CHUNK):
        if spec.snapshot:
            digest.update(repr(rows).encode("utf-8", "replace"))
        frames.append(build_frame(spec, rows, account, seq))
    df = pl.concat(frames, how="vertical") if frames else pl.DataFrame(schema=lake_schema(spec.schema))
    return df, digest.hexdigest()


def revision(fp: dict[str, Any]) -> str:
    return hashlib.sha1(json.dumps(fp, sort_keys=True, default=str).encode()).hexdigest()[:16]


def choose_mode(cur: dict[str, Any] | None, fp: dict[str, Any], disk: set[int], has_rowid: bool, config: str,
                snapshot: bool) -> str:
    """none | increment | full (no usable cursor, parts lost, new exclusions, rows deleted, snapshot changed)."""
    if (cur is None or not set(cur.get("parts", [])) <= disk or cur.get("rowid") != has_rowid
            or cur.get("config") != config or regressed(cur["fp"], fp)):
        return "full"
    if cur["fp"] == fp:
        return "none"
    return "full" if snapshot else "increment"


# -- one unit -------------------------------------------------------------------------------
def sync_table(ctx: ExtractContext, rep: SourceReport, src: Source, account: str, key: str, spec: TableSpec,
               info: DbInfo, ex: exclude.Exclusions, config: str, force_full: bool) -> None:
    unit = f"{account}:{spec.source}"
    rep.units_seen += 1
    problem = info.problem(spec) or ex.blind.get(spec.lake)
    if problem:  # keep the last good parts; the unit state carries the error
        rep.degraded = True
        ctx.unit_failed(rep, unit, Code.SOURCE_SCHEMA_UNSUPPORTED.value, problem, schema_version=info.version)
        return
    try:
        _sync(ctx, rep, src, account, key, spec, info, ex, config, force_full)
    except sqlite3.DatabaseError as e:
        if classify(e) == "busy":
            raise  # the account is retried as a whole
        rep.degraded = True
        ctx.unit_failed(rep, unit, error_code(e), f"{spec.source}: {e}", schema_version=info.version)


def _sync(ctx: ExtractContext, rep: SourceReport, src: Source, account: str, key: str, spec: TableSpec,
          info: DbInfo, ex: exclude.Exclusions, config: str, force_full: bool) -> None:
    unit, has_rowid = f"{account}:{spec.source}", info.rowid[spec.source]
    raw = ctx.store.cursor(unit)
    cur: dict[str, Any] | None = raw if isinstance(raw, dict) and "fp" in raw else None
    disk = part_numbers(ctx, spec.lake, key)
    n = max([cur.get("seq", 0) if cur else 0, *disk]) + 1
    fp = fingerprint(src.conn, spec, has_rowid)
    df = None
    if spec.snapshot:
        df, fp["hash"] = read_rows(src, spec, "", [], has_rowid, account, n)
    mode = "full" if force_full else choose_mode(cur, fp, disk, has_rowid, config, spec.snapshot)
    if mode == "increment" and cur is not None:
        df, _ = read_rows(src, spec, *increment_where(spec, cur["fp"], has_rowid), has_rowid, account, n)
        if not has_rowid and cur["fp"]["count"] + df.height < fp["count"]:
            mode = "full"  # rows share the old max timestamp: the marks missed some, read everything
    if mode == "full" and not spec.snapshot:  # a snapshot table was read whole already
        df, _ = read_rows(src, spec, "", [], has_rowid, account, n)
    parts = list(cur.get("parts", [])) if cur else []
    written = 0
    if df is not None:
        kept = exclude.apply(spec.lake, df, ex)
        if spec.lake == "ac_participations":
            ex.participations = set(df["participation_id"].drop_nulls()) - set(kept["participation_id"].drop_nulls())
        if mode != "none":
            src.check_stable()
            written = ctx.lake.write_unit(SOURCE, spec.lake, part_stem(key, n), kept)
            if mode == "full":
                drop_parts(ctx, spec.lake, key, keep=n)
                parts = []
            parts += [n] if written else []
    if mode == "none":
        rep.units_unchanged += 1
    else:
        rep.units_changed += 1
        rep.add_rows(spec.lake, written)
    ctx.unit_ok(rep, unit, revision(fp), counts={"rows": int(fp["count"])}, schema_version=info.version,
                cursor={"fp": fp, "parts": sorted(parts), "seq": n if written else n - 1,
                        "rowid": has_rowid, "config": config})


def unit_fresh(ctx: ExtractContext, account: str, key: str, config: str) -> bool:
    """Every table unit of the account is ok with its parts on disk (the no-op fast path may skip it)."""
    for spec in SPECS:
        unit = f"{account}:{spec.source}"
        cur = ctx.store.cursor(unit)
        state = ctx.store.units.get(unit, {})
        if not isinstance(cur, dict) or state.get("status") != "ok" or cur.get("config") != config:
            return False
        if not set(cur.get("parts", [])) <= part_numbers(ctx, spec.lake, key):
            return False
    return True
