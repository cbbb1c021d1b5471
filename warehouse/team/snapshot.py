"""Export one catalog snapshot as a plain lake folder (`bronze/<source>/<table>/snapshot.parquet`).

The build reads that folder exactly as it reads the local lake, so the models do not know about
DuckLake. Rows are written in (writer_id, unit_key) order, so the same snapshot gives the same files.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import duckdb

from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.literals import text as sql_text
from warehouse.core.settings import LakeSettings
from warehouse.team import catalog

EXPORT_FILE = "snapshot.parquet"
STATE_TABLE = "meta__source_state"
# bronze column -> ak_writer_scope kind (the keys ak_acl_writer maps documents by)
SCOPE_KINDS = {"session_id": "session", "workspace_id": "workspace", "account": "account", "skill_id": "skill"}


def _tables(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str]]:
    """(DuckLake table, source, bronze table) of every data table (`<source>__<table>`)."""
    names = con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = ? ORDER BY 1",
                        [catalog.ALIAS]).fetchall()
    out = []
    for (name,) in names:
        source, sep, table = name.partition("__")
        if sep and source and table:
            out.append((name, source, table))
    return out


def resolve(con: duckdb.DuckDBPyConnection, version: int | None) -> int:
    if version is None:
        return catalog.current_snapshot(con)
    known = con.execute(f"SELECT count(*) FROM ducklake_snapshots('{catalog.ALIAS}') WHERE snapshot_id = ?",
                        [version]).fetchone()[0]
    if not known:
        raise KnowledgeError(Code.NOT_FOUND, f"snapshot {version} is not in the team catalog (expired or never made)",
                             field="snapshot")
    return version


def export(cfg: LakeSettings, out_root: Path, version: int | None = None) -> dict[str, Any]:
    """Write snapshot `version` (default: the latest) under `out_root` (replaced); returns its identity."""
    with catalog.lake(cfg) as con:
        lake_id = catalog.lake_id(con)
        if lake_id is None:
            raise KnowledgeError(Code.NOT_READY, "the team catalog is not initialised (akw team init)")
        catalog.check_schema(con)
        sid = resolve(con, version)
        tmp = out_root.with_name(f".{out_root.name}.tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        rows: dict[str, int] = {}
        exported: set[str] = set()
        for name, source, table in _tables(con):
            target = tmp / "bronze" / source / table / EXPORT_FILE
            target.parent.mkdir(parents=True, exist_ok=True)
            # unit states name units per machine (a DSH registry, an AutoClaw account): the writer keeps them apart
            cols = ("* EXCLUDE (writer_id, unit_key, unit), writer_id || '/' || unit AS unit"
                    if name == STATE_TABLE else "* EXCLUDE (writer_id, unit_key)")
            try:
                con.execute(f"COPY (SELECT {cols} FROM {catalog.ALIAS}.{name} "
                            f"AT (VERSION => {int(sid)}) ORDER BY writer_id, unit_key) TO {sql_text(str(target))} "
                            "(FORMAT parquet, COMPRESSION lz4)")
            except duckdb.CatalogException:
                shutil.rmtree(target.parent)  # the table did not exist yet at that snapshot
                continue
            exported.add(name)
            rows[f"{source}.{table}"] = con.execute(
                f"SELECT count(*) FROM read_parquet({sql_text(str(target))})").fetchone()[0]
        _writer_scope(con, sid, exported, tmp / "bronze" / "meta" / "writer_scope" / EXPORT_FILE)
        shutil.rmtree(out_root, ignore_errors=True)
        tmp.mkdir(parents=True, exist_ok=True)
        tmp.replace(out_root)
        return {"lake_id": lake_id, "snapshot_id": sid, "rows": rows}


def _writer_scope(con: duckdb.DuckDBPyConnection, sid: int, tables: set[str], target: Path) -> None:
    """(writer_id, kind, id) of every session, workspace, account and skill at the snapshot: `ak_writer_scope`,
    where access control maps principals to writers (the export drops writer_id from the data rows).

    `tables`: the DuckLake tables that existed at the snapshot (the ones exported)."""
    cols = con.execute("SELECT table_name, column_name FROM duckdb_columns() WHERE database_name = ? "
                       f"AND column_name IN ({', '.join(map(sql_text, SCOPE_KINDS))})", [catalog.ALIAS]).fetchall()
    parts = [f"SELECT writer_id, '{SCOPE_KINDS[col]}' AS kind, CAST({col} AS VARCHAR) AS id "
             f"FROM {catalog.ALIAS}.{table} AT (VERSION => {int(sid)}) WHERE {col} IS NOT NULL"
             for table, col in sorted(cols) if table in tables and table != STATE_TABLE]
    if "skills" in tables:  # one skill id two writers pushed is one item, built from one row: name whose
        parts.append(f"SELECT writer_id, 'skill_row' AS kind, skill_id || '|' || path AS id "  # row it is
                     f"FROM {catalog.ALIAS}.skills AT (VERSION => {int(sid)}) "
                     "WHERE skill_id IS NOT NULL AND path IS NOT NULL")
    if parts:
        target.parent.mkdir(parents=True, exist_ok=True)
        con.execute(f"COPY (SELECT DISTINCT * FROM ({' UNION '.join(parts)}) ORDER BY ALL) TO "
                    f"{sql_text(str(target))} (FORMAT parquet)")
