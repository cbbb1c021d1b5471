"""Forget on the shared lake: delete the rows of the forgotten sessions, workspaces, skills and actors (or of
everything), rewrite the files that held them, expire the snapshots that still reach them and delete the
freed files, so no byte of them stays in the data path.

DuckLake never removes data by itself (time travel), so a delete alone is not a forget: the rewrite +
expire + cleanup steps are what make it physical. Expiring gives up time travel to every older
snapshot (`reindex --snapshot N` then answers NOT_FOUND for them). Table-level min/max statistics
in the catalog may still quote a deleted value, so those of the touched tables are cleared. A unit left
without rows leaves `ak_team_units` too (its key may name a session file): that writer's next push
would send it again were it still in its local lake, so a writer forgets on its own machine too.
"""

from __future__ import annotations

from typing import Any

import duckdb

from warehouse.core.literals import text as sql_text
from warehouse.core.literals import texts as sql_texts
from warehouse.core.settings import LakeSettings
from warehouse.team import catalog
from warehouse.team.catalog import ALIAS, UNITS

META_DB = f"__ducklake_metadata_{ALIAS}"  # DuckLake's own attachment of the PostgreSQL catalog
STATE_TABLE = "meta__source_state"
# forget kind -> the bronze columns whose value names it (a row naming one goes)
ID_COLUMNS = {"session": ("session_id", "source_session_id"),
              "workspace": ("workspace_id", "workspace_path", "workspace"),  # AutoClaw: `workspace` is a path
              "skill": ("skill_id",),
              "actor": ("agent_id",)}
UNIT_NAMED = ("session", "workspace")  # kinds a unit-state name (`unit`) may spell out


def _columns(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, str]]:
    rows = con.execute("SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE database_name = ? "
                       "AND table_name LIKE '%\\_\\_%' ESCAPE '\\'", [ALIAS]).fetchall()
    out: dict[str, dict[str, str]] = {}
    for t, c, dt in rows:
        out.setdefault(t, {})[c] = dt
    return out


def _delete_where(table: str, cols: dict[str, str], values: dict[str, list[str]]) -> list[str]:
    """The conditions under which a row of `table` is one of the forgotten (any one suffices)."""
    if values.get("all"):
        return ["true"]
    conds = [f"list_contains({sql_texts(vals)}, {c})" for kind, vals in sorted(values.items()) if vals
             for c in ID_COLUMNS.get(kind, ()) if c in cols]
    if table == STATE_TABLE:
        conds += [f"contains(unit, {sql_text(v)})" for k in UNIT_NAMED for v in values.get(k, [])]
    return conds


def _update_where(cols: dict[str, str], sessions: list[str]) -> list[tuple[str, str]]:
    """(SET clause, condition) of rows that only mention a forgotten session (a child, a registry's list)."""
    if not sessions:
        return []
    q = sql_texts(sessions)
    out = []
    if "parent_session" in cols:
        out.append(("parent_session = NULL", f"list_contains({q}, parent_session)"))
    if cols.get("session_ids", "").endswith("[]"):
        out.append((f"session_ids = list_filter(session_ids, x -> NOT list_contains({q}, x))",
                    f"list_has_any(session_ids, {q})"))
    return out


def _with_workspace_skills(con: duckdb.DuckDBPyConnection, cols: dict[str, dict[str, str]],
                           values: dict[str, list[str]], writer_clause: str) -> dict[str, list[str]]:
    """A forgotten workspace takes the skills of its skill roots (their resource rows name only the skill)."""
    ws = values.get("workspace", [])
    if not ws or "workspace_id" not in cols.get("skills__skills", {}):
        return values
    found = [r[0] for r in con.execute(f"SELECT DISTINCT skill_id FROM {ALIAS}.skills__skills WHERE "
                                       f"list_contains({sql_texts(ws)}, workspace_id){writer_clause}").fetchall()]
    return {**values, "skill": sorted({*values.get("skill", []), *found})} if found else values


def _touched(con: duckdb.DuckDBPyConnection, table: str, conds: list[str], writer_clause: str) -> int:
    if not conds:
        return 0
    return con.execute(f"SELECT count(*) FROM {ALIAS}.{table} WHERE ({' OR '.join(conds)}){writer_clause}"
                       ).fetchone()[0]


def forget_ids(cfg: LakeSettings, values: dict[str, list[str]], writer_id: str | None = None,
               confirm: bool = False) -> dict[str, Any]:
    """Remove the rows naming `values` (forget kind -> ids; `{"all": ["all"]}`: every row) of `writer_id`
    (or of every writer) from the team lake.

    Without `confirm` it only counts the rows it would touch. With it: one transaction of deletes,
    then rewrite, expire every older snapshot, clean up old and orphaned files, clear table stats.
    """
    writer_clause = f" AND writer_id = {sql_text(writer_id)}" if writer_id else ""
    sessions = values.get("session", [])
    with catalog.lake(cfg) as con:
        cols = _columns(con)
        values = _with_workspace_skills(con, cols, values, writer_clause)
        plan = {t: (_delete_where(t, c, values), _update_where(c, sessions)) for t, c in sorted(cols.items())}
        touched = {t: n for t, (d, u) in plan.items() if (n := _touched(con, t, d + [w for _, w in u], writer_clause))}
        if not confirm or not touched:
            return {"writer_id": writer_id, "confirmed": confirm and bool(touched), "rows": touched}
        units = sorted({(w, t.partition("__")[0], k) for t in touched if t != STATE_TABLE and plan[t][0]
                        for w, k in con.execute(f"SELECT DISTINCT writer_id, unit_key FROM {ALIAS}.{t} "
                                                f"WHERE ({' OR '.join(plan[t][0])}){writer_clause}").fetchall()})

        def body() -> None:
            for t in touched:
                deletes, updates = plan[t]
                if deletes:
                    con.execute(f"DELETE FROM {ALIAS}.{t} WHERE ({' OR '.join(deletes)}){writer_clause}")
                for set_clause, cond in updates:
                    con.execute(f"UPDATE {ALIAS}.{t} SET {set_clause} WHERE {cond}{writer_clause}")
            _drop_empty_units(con, cols, units)
            if values.get("all"):
                con.execute(f"DELETE FROM {UNITS} WHERE true{writer_clause}")
            con.execute(f"CALL ducklake_set_commit_message({sql_text(ALIAS)}, 'forget', 'forget')")

        catalog.transaction(con, body)
        compact(con, list(touched))
        return {"writer_id": writer_id, "confirmed": True, "rows": touched,
                "snapshot_id": catalog.current_snapshot(con)}


def _drop_empty_units(con: duckdb.DuckDBPyConnection, cols: dict[str, dict[str, str]],
                      units: list[tuple[str, str, str]]) -> None:
    """A unit none of whose rows is left is no longer the writer's (its key names a file: it goes too)."""
    for writer, source, key in units:
        tables = [t for t in cols if t.partition("__")[0] == source]
        left = sum(con.execute(f"SELECT count(*) FROM {ALIAS}.{t} WHERE writer_id = ? AND unit_key = ?",
                               [writer, key]).fetchone()[0] for t in tables)
        if not left:
            con.execute(f"DELETE FROM {UNITS} WHERE writer_id = ? AND source = ? AND unit_key = ?",
                        [writer, source, key])


def forget_session(cfg: LakeSettings, session_id: str, writer_id: str | None = None,
                   confirm: bool = False) -> dict[str, Any]:
    """Remove session `session_id` (of `writer_id`, or of every writer) from the team lake."""
    return {"session_id": session_id, **forget_ids(cfg, {"session": [session_id]}, writer_id, confirm)}


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
