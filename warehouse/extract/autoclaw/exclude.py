"""Exclusions for AutoClaw rows, resolved once per account from the same read snapshot.

Workspaces live on `work_sessions`, so a run/event/entry is excluded through its session, a
participation through its run, an attempt through its participation; agents by id or name.
When a link needed to honour a configured exclusion cannot be read, the dependent tables are
"blind" and are not indexed at all (fail closed: privacy over coverage).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

import polars as pl

from warehouse.extract.autoclaw.tables import q
from warehouse.extract.base import ExtractContext

SESSION_BOUND = ("ac_runs", "ac_events", "ac_entries")
RUN_BOUND = ("ac_participations", "ac_attempts")


@dataclass
class Exclusions:
    workspaces: set[str]
    actors: set[str]  # configured actor ids/names
    sessions: set[str] = field(default_factory=set)  # excluded session ids (explicit or by workspace)
    runs: set[str] = field(default_factory=set)  # runs of excluded sessions
    agents: set[str] = field(default_factory=set)  # excluded agent ids (by id or by name)
    participations: set[str] = field(default_factory=set)  # filled when participations are read
    vouched: set[str] | None = None  # with workspace exclusions: sessions known to be included
    blind: dict[str, str] = field(default_factory=dict)  # lake table -> why it cannot be filtered


def _pairs(conn: sqlite3.Connection, table: str, a: str, b: str) -> list[tuple[str, str | None]]:
    sql = f"SELECT CAST({q(a)} AS TEXT), CAST({q(b)} AS TEXT) FROM {q(table)} WHERE {q(a)} IS NOT NULL"
    return [(r[0], r[1]) for r in conn.execute(sql)]


def resolve(ctx: ExtractContext, conn: sqlite3.Connection, columns: dict[str, set[str]]) -> Exclusions:
    """Excluded ids of one account. `columns` maps each present table to its column names."""
    ex_cfg = ctx.settings.exclude
    ex = Exclusions(workspaces=set(ex_cfg.workspaces), actors=set(ex_cfg.actors))
    ex.sessions = set(ex_cfg.sessions)

    def readable(table: str, *cols: str) -> bool:
        return set(cols) <= columns.get(table, set())

    if readable("work_sessions", "session_id", "workspace"):
        pairs = _pairs(conn, "work_sessions", "session_id", "workspace")
        ex.sessions |= {s for s, w in pairs if ctx.excluded_session(s) or ctx.excluded_workspace(w)}
        if ex.workspaces:
            ex.vouched = {s for s, _ in pairs} - ex.sessions
    elif ex.workspaces:
        for t in (*SESSION_BOUND, *RUN_BOUND):
            ex.blind[t] = "workspace exclusions need work_sessions(session_id, workspace)"
    if ex.sessions:
        if readable("work_runs", "run_id", "session_id"):
            ex.runs = {r for r, s in _pairs(conn, "work_runs", "run_id", "session_id") if s in ex.sessions}
        else:
            for t in RUN_BOUND:
                ex.blind.setdefault(t, "session exclusions need work_runs(run_id, session_id)")
    if ex.runs and not readable("collaboration_run_agent_participations", "participation_id", "run_id"):
        ex.blind.setdefault("ac_attempts", "session exclusions need collaboration_run_agent_participations")
    ex.agents = set(ex.actors)  # an actor entry may be an agent id ...
    if readable("agents", "agent_id", "name"):  # ... or a name; a forgotten agent is tombstoned by its id
        ex.agents |= {a for a, n in _pairs(conn, "agents", "agent_id", "name")
                      if ctx.excluded_actor(n) or (ctx.tombstones is not None and ctx.tombstones.has("actor", a))}
    return ex


def expired_sessions(ctx: ExtractContext, conn: sqlite3.Connection, columns: dict[str, set[str]]) -> set[str]:
    """Sessions whose last update is older than the retention window (`retention_days`)."""
    if ctx.retention_cutoff_ms is None or not {"session_id", "updated_at"} <= columns.get("work_sessions", set()):
        return set()
    rows = conn.execute(f"SELECT CAST(session_id AS TEXT), updated_at FROM {q('work_sessions')} "
                        "WHERE session_id IS NOT NULL AND updated_at IS NOT NULL").fetchall()
    return {s for s, t in rows if (ms := _ms(t)) is not None and ms < ctx.retention_cutoff_ms}


def newest_expiry_ms(conn: sqlite3.Connection, columns: dict[str, set[str]],
                     kept: set[str] | None = None) -> float | None:
    """The oldest `updated_at` among sessions not yet excluded: the no-op fast path re-reads the account
    once the retention cutoff passes it."""
    if not {"session_id", "updated_at"} <= columns.get("work_sessions", set()):
        return None
    rows = conn.execute(f"SELECT CAST(session_id AS TEXT), updated_at FROM {q('work_sessions')}").fetchall()
    times = [ms for s, t in rows if (kept is None or s not in kept) and (ms := _ms(t)) is not None]
    return min(times) if times else None


def _ms(t: object) -> float | None:
    """Epoch ms of an AutoClaw timestamp (ISO 8601 text, or seconds/ms since the epoch)."""
    if isinstance(t, int | float):
        return t * 1000 if t < 10_000_000_000 else float(t)
    if isinstance(t, str):
        from datetime import UTC, datetime

        try:
            dt = datetime.fromisoformat(t.replace("Z", "+00:00"))
        except ValueError:
            return None
        return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).timestamp() * 1000
    return None


def _out(col: str, values: set[str]) -> pl.Expr | None:
    """True where col is NOT one of values (null counts as not excluded); None if values is empty."""
    return pl.col(col).is_in(sorted(values)).fill_null(False).not_() if values else None


def keep_expr(lake_table: str, ex: Exclusions) -> pl.Expr | None:
    """The row filter of one lake table, or None when nothing is excluded."""
    conds: list[pl.Expr | None] = []
    if lake_table in ("ac_sessions", *SESSION_BOUND):
        conds.append(_out("session_id", ex.sessions))
        if ex.vouched is not None:
            conds.append(pl.col("session_id").is_in(sorted(ex.vouched)).fill_null(False))
        if lake_table != "ac_sessions":
            conds.append(_out("run_id", ex.runs))
    elif lake_table == "ac_memories":
        conds += [_out("workspace", ex.workspaces), _out("source_session_id", ex.sessions)]
    elif lake_table in ("ac_agents", "ac_participations"):
        conds += [_out("agent_id", ex.agents), _out("name", ex.actors)]
        if lake_table == "ac_participations":
            conds.append(_out("run_id", ex.runs))
    elif lake_table == "ac_agent_snapshots":
        conds.append(_out("agent_id", ex.agents))
    elif lake_table == "ac_attempts":
        conds += [_out("participation_id", ex.participations), _out("agent_id", ex.agents)]
    live = [c for c in conds if c is not None]
    if not live:
        return None
    out = live[0]
    for c in live[1:]:
        out = out & c
    return out


def apply(lake_table: str, df: pl.DataFrame, ex: Exclusions) -> pl.DataFrame:
    expr = keep_expr(lake_table, ex)
    return df if expr is None or df.height == 0 else df.filter(expr)
