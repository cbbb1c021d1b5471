"""Push: copy the machine's changed bronze units into the shared DuckLake, one transaction per unit batch.

What a writer has committed is recorded in the catalog itself (`ak_team_units`, in the same transaction
as the rows), so a push killed mid-commit leaves nothing behind but unreferenced files, and the next
push redoes exactly the batches that never committed. Rows carry `writer_id` and `unit_key`, so two
machines' units stay apart. The local lake was redacted on its way to disk; nothing else is read.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from warehouse import __version__
from warehouse.core.literals import text as sql_text
from warehouse.core.literals import texts as sql_texts
from warehouse.core.settings import LakeSettings
from warehouse.home.state import load_all_units
from warehouse.team import catalog
from warehouse.team.catalog import UNITS, WRITERS

SCHEMA_FILE = "_schema.parquet"
STATE_SOURCE, STATE_TABLE, STATE_UNIT = "meta", "source_state", "all"
FAULT_PAUSE_ENV = "AKW_TEAM_FAULT_PAUSE"  # tests: `<marker path>@<batch no>`: that batch pauses before COMMIT


@dataclass
class LocalUnit:
    source: str
    key: str
    files: dict[str, Path] = field(default_factory=dict)  # table -> unit file
    digest: str = ""


def local_units(lake_root: Path) -> dict[tuple[str, str], LocalUnit]:
    """Every unit of the local lake (`bronze/<source>/<table>/<key>.parquet`) with a content digest."""
    units: dict[tuple[str, str], LocalUnit] = {}
    bronze = lake_root / "bronze"
    for f in sorted(bronze.glob("*/*/*.parquet")) if bronze.exists() else []:
        source, table, key = f.parent.parent.name, f.parent.name, f.stem
        if f.name == SCHEMA_FILE or source == STATE_SOURCE:
            continue
        units.setdefault((source, key), LocalUnit(source, key)).files[table] = f
    for u in units.values():
        h = hashlib.blake2b(digest_size=16)
        for table, f in sorted(u.files.items()):
            h.update(table.encode() + b"\0" + hashlib.blake2b(f.read_bytes(), digest_size=16).digest())
        u.digest = h.hexdigest()
    return units


def schemas(lake_root: Path) -> dict[tuple[str, str], Path]:
    """(source, table) -> the zero-row schema file every bronze table has."""
    bronze = lake_root / "bronze"
    return {(f.parent.parent.name, f.parent.name): f for f in sorted(bronze.glob(f"*/*/{SCHEMA_FILE}"))
            if f.parent.parent.name != STATE_SOURCE} if bronze.exists() else {}


def source_state_frame(state_dir: Path) -> pl.DataFrame:
    """This writer's unit states (what `ak_source_state` shows), one row per unit."""
    rows = [{"source": u.get("source"), "unit": u.get("unit"), "revision": u.get("revision"),
             "status": u.get("status"), "error_code": u.get("error_code"), "error": u.get("error"),
             "counts_json": json.dumps(u.get("counts") or {}, sort_keys=True),
             "schema_version": u.get("schema_version"), "extracted_at": u.get("extracted_at")}
            for u in load_all_units(state_dir)]
    cols = ("source", "unit", "revision", "status", "error_code", "error", "counts_json", "schema_version",
            "extracted_at")
    return pl.DataFrame(rows, schema=dict.fromkeys(cols, pl.String))


def _ensure_tables(con: duckdb.DuckDBPyConnection, tables: dict[tuple[str, str], Path]) -> None:
    have = catalog.table_names(con)
    missing = {k: p for k, p in tables.items() if catalog.data_table(*k) not in have}
    if not missing:
        return

    def body() -> None:
        for (source, table), schema in sorted(missing.items()):
            con.execute(f"CREATE TABLE IF NOT EXISTS {catalog.ALIAS}.{catalog.data_table(source, table)} AS "
                        f"SELECT NULL::VARCHAR AS writer_id, NULL::VARCHAR AS unit_key, * "
                        f"FROM read_parquet({sql_text(str(schema))}) LIMIT 0")

    catalog.transaction(con, body)


def _remote_digests(con: duckdb.DuckDBPyConnection, writer: str) -> dict[tuple[str, str], str]:
    rows = con.execute(f"SELECT source, unit_key, digest FROM {UNITS} WHERE writer_id = ?", [writer]).fetchall()
    return {(s, k): d for s, k, d in rows}


def push(lake_root: Path, state_dir: Path, cfg: LakeSettings, scratch: Path) -> dict[str, Any]:
    """Commit every unit whose digest differs from what this writer has in the catalog; delete vanished ones."""
    t0 = time.perf_counter()
    _, _, writer = catalog.require(cfg)
    units = local_units(lake_root)
    state = source_state_frame(state_dir)
    scratch.mkdir(parents=True, exist_ok=True)
    state_file = scratch / "source_state.parquet"
    state.write_parquet(state_file)
    state_digest = hashlib.blake2b(state.write_json().encode(), digest_size=16).hexdigest()
    with catalog.lake(cfg) as con:
        catalog.ensure_meta(con)
        tables = schemas(lake_root)
        tables[(STATE_SOURCE, STATE_TABLE)] = state_file
        _ensure_tables(con, tables)
        remote = _remote_digests(con, writer)
        changed = sorted(k for k, u in units.items() if remote.get(k) != u.digest)
        removed = sorted(k for k in remote if k not in units and k[0] != STATE_SOURCE)
        state_changed = remote.get((STATE_SOURCE, STATE_UNIT)) != state_digest
        work: list[tuple[str, str]] = changed + removed
        batches = [work[i:i + cfg.batch_units] for i in range(0, len(work), cfg.batch_units)] or (
            [[]] if state_changed else [])
        rows = 0
        snapshot = catalog.current_snapshot(con)
        for n, batch in enumerate(batches):
            last = n == len(batches) - 1
            rows += catalog.transaction(con, lambda b=batch, last=last, n=n: _commit_batch(
                con, writer, b, units, tables, state_file if last and state_changed else None, state_digest, n))
            snapshot = catalog.current_snapshot(con)
        byte_count = sum(f.stat().st_size for k in changed for f in units[k].files.values())
        return {"writer_id": writer, "units_pushed": len(changed), "units_removed": len(removed),
                "commits": len(batches), "rows": rows, "bytes": byte_count, "snapshot_id": snapshot,
                "duration_s": round(time.perf_counter() - t0, 3)}


def _commit_batch(con: duckdb.DuckDBPyConnection, writer: str, batch: list[tuple[str, str]],
                  units: dict[tuple[str, str], LocalUnit], tables: dict[tuple[str, str], Path],
                  state_file: Path | None, state_digest: str, batch_no: int) -> int:
    """One transaction's statements: replace the batch's units in every table of their source."""
    rows = 0
    by_source: dict[str, list[str]] = defaultdict(list)
    for source, key in batch:
        by_source[source].append(key)
    for source, keys in sorted(by_source.items()):
        mine = f"writer_id = ? AND list_contains({sql_texts(keys)}, unit_key)"
        for (src, table) in sorted(t for t in tables if t[0] == source):
            name = f"{catalog.ALIAS}.{catalog.data_table(src, table)}"
            con.execute(f"DELETE FROM {name} WHERE {mine}", [writer])
            files = [str(units[(source, k)].files[table]) for k in keys
                     if (source, k) in units and table in units[(source, k)].files]
            if files:
                rows += con.execute(
                    f"INSERT INTO {name} BY NAME SELECT * EXCLUDE (filename), {sql_text(writer)} AS writer_id, "
                    f"regexp_extract(filename, '([^/\\\\]+)\\.parquet$', 1) AS unit_key "
                    f"FROM read_parquet({sql_texts(files)}, union_by_name = true, filename = true)").fetchone()[0]
        con.execute(f"DELETE FROM {UNITS} WHERE source = ? AND {mine}", [source, writer])
        present = [(writer, source, k, units[(source, k)].digest) for k in keys if (source, k) in units]
        if present:
            con.executemany(f"INSERT INTO {UNITS} VALUES (?, ?, ?, ?)", present)
    if state_file is not None:
        name = f"{catalog.ALIAS}.{catalog.data_table(STATE_SOURCE, STATE_TABLE)}"
        con.execute(f"DELETE FROM {name} WHERE writer_id = ?", [writer])
        con.execute(f"INSERT INTO {name} BY NAME SELECT *, {sql_text(writer)} AS writer_id, "
                    f"{sql_text(STATE_UNIT)} AS unit_key FROM read_parquet({sql_text(str(state_file))})")
        con.execute(f"DELETE FROM {UNITS} WHERE writer_id = ? AND source = ?", [writer, STATE_SOURCE])
        con.execute(f"INSERT INTO {UNITS} VALUES (?, ?, ?, ?)", [writer, STATE_SOURCE, STATE_UNIT, state_digest])
    total = con.execute(f"SELECT count(*) FROM {UNITS} WHERE writer_id = ?", [writer]).fetchone()[0]
    con.execute(f"DELETE FROM {WRITERS} WHERE writer_id = ?", [writer])
    con.execute(f"INSERT INTO {WRITERS} VALUES (?, ?, ?, ?, ?)",
                [writer, datetime.now(UTC), total, rows, __version__])
    con.execute(f"CALL ducklake_set_commit_message({sql_text(catalog.ALIAS)}, {sql_text(writer)}, "
                f"{sql_text(f'push {len(batch)} units')})")
    _fault_pause(batch_no)
    return int(rows)


def _fault_pause(batch_no: int) -> None:
    """Fault injection for the kill -9 test: announce 'inside a commit' and wait to be killed."""
    marker, _, at = os.environ.get(FAULT_PAUSE_ENV, "").rpartition("@")
    if marker and at.isdigit() and int(at) == batch_no and not Path(marker).exists():
        Path(marker).write_text(str(os.getpid()))
        time.sleep(120)
