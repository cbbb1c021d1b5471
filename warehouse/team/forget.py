"""Forget one session in the shared lake: delete its rows, rewrite the files that held them, expire the
snapshots that still reach them and delete the freed files, so no byte of it stays in the data path.

DuckLake never removes data by itself (time travel), so a delete alone is not a forget: the rewrite +
expire + cleanup steps are what make it physical. Expiring gives up time travel to every older
snapshot (`reindex --snapshot N` then answers NOT_FOUND for them). Table-level min/max statistics
in the catalog may still quote a deleted value, so those of the touched tables are cleared.
"""

from __future__ import annotations

from typing import Any

import duckdb

from warehouse.literals import text as sql_text
from warehouse.settings import LakeSettings
from warehouse.team import catalog
from warehouse.team.catalog import ALIAS, UNITS

META_DB = f"__ducklake_metadata_{ALIAS}"  # DuckLake's own attachment of the PostgreSQL catalog


def _columns(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, str]]:
    rows = con.execute("SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE database_name = ? "
                       "AND table_name LIKE '%\\_\\_%' ESCAPE '\\'", [ALIAS]).fetchall()
    out: dict[str, dict[str, str]] = {}
    for t, c, dt in rows:
        out.setdefault(t, {})[c] = dt
    return out


def _statements(table: str, cols: dict[str, str], writer_clause: str, sid: str) -> list[str]:
    """The deletes/updates that take session `sid` out of one table."""
    name, q = f"{ALIAS}.{table}", sql_text(sid)
    out = []
    if "session_id" in cols:
        out.append(f"DELETE FROM {name} WHERE session_id = {q}{writer_clause}")
    if "source_session_id" in cols:
        out.append(f"DELETE FROM {name} WHERE source_session_id = {q}{writer_clause}")
    if "parent_session" in cols:
        out.append(f"UPDATE {name} SET parent_session = NULL WHERE parent_session = {q}{writer_clause}")
    if cols.get("session_ids", "").endswith("[]"):
        out.append(f"UPDATE {name} SET session_ids = list_filter(session_ids, x -> x <> {q}) "
                   f"WHERE list_contains(session_ids, {q}){writer_clause}")
    if table == "meta__source_state":
        out.append(f"DELETE FROM {name} WHERE contains(unit, {q}){writer_clause}")
    return out


def _touched(con: duckdb.DuckDBPyConnection, table: str, cols: dict[str, str], writer_clause: str,
             sid: str) -> int:
    q = sql_text(sid)
    conds = [f"{c} = {q}" for c in ("session_id", "source_session_id", "parent_session") if c in cols]
    if cols.get("session_ids", "").endswith("[]"):
        conds.append(f"list_contains(session_ids, {q})")
    if table == "meta__source_state":
        conds.append(f"contains(unit, {q})")
    if not conds:
        return 0
    return con.execute(f"SELECT count(*) FROM {ALIAS}.{table} WHERE ({' OR '.join(conds)}){writer_clause}"
                       ).fetchone()[0]


def forget_session(cfg: LakeSettings, session_id: str, writer_id: str | None = None,
                   confirm: bool = False) -> dict[str, Any]:
    """Remove session `session_id` (of `writer_id`, or of every writer) from the team lake.

    Without `confirm` it only counts the rows it would touch. With it: one transaction of deletes,
    then rewrite, expire every older snapshot, clean up old and orphaned files, clear table stats.
    """
    writer_clause = f" AND writer_id = {sql_text(writer_id)}" if writer_id else ""
    with catalog.lake(cfg) as con:
        cols = _columns(con)
        touched = {t: n for t, c in sorted(cols.items()) if (n := _touched(con, t, c, writer_clause, session_id))}
        if not confirm or not touched:
            return {"session_id": session_id, "writer_id": writer_id, "confirmed": confirm and bool(touched),
                    "rows": touched}
        units = con.execute(f"SELECT DISTINCT writer_id, unit_key FROM {ALIAS}.dsh__sessions WHERE session_id = ?"
                            f"{writer_clause}", [session_id]).fetchall() if "dsh__sessions" in cols else []

        def body() -> None:
            for t in touched:
                for stmt in _statements(t, cols[t], writer_clause, session_id):
                    con.execute(stmt)
            for w, k in units:  # the DSH unit was this session's file: the writer no longer has it
                con.execute(f"DELETE FROM {UNITS} WHERE writer_id = ? AND source = 'dsh' AND unit_key = ?", [w, k])
            con.execute(f"CALL ducklake_set_commit_message({sql_text(ALIAS)}, 'forget', 'forget one session')")

        catalog.transaction(con, body)
        compact(con, list(touched))
        return {"session_id": session_id, "writer_id": writer_id, "confirmed": True, "rows": touched,
                "snapshot_id": catalog.current_snapshot(con)}


def compact(con: duckdb.DuckDBPyConnection, tables: list[str]) -> None:
    """Make deletes physical: rewrite files with deleted rows, expire older snapshots, delete freed files."""
    for t in tables:
        con.execute(f"CALL ducklake_rewrite_data_files({sql_text(ALIAS)}, {sql_text(t)}, delete_threshold => 0.0)")
    con.execute(f"CALL ducklake_expire_snapshots({sql_text(ALIAS)}, older_than => now())")
    con.execute(f"CALL ducklake_cleanup_old_files({sql_text(ALIAS)}, cleanup_all => true)")
    con.execute(f"CALL ducklake_delete_orphaned_files({sql_text(ALIAS)}, cleanup_all => true)")
    ids = ", ".join(sql_text(t) for t in tables)
    con.execute(f"UPDATE {META_DB}.public.ducklake_table_column_stats SET min_value = NULL, max_value = NULL "
                f"WHERE table_id IN (SELECT table_id FROM {META_DB}.public.ducklake_table "
                f"WHERE table_name IN ({ids}))")
