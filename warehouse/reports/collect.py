"""What a report shows, gathered from `status`, the published marts, the run log and the report files."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from warehouse.core import db
from warehouse.core.errors import KnowledgeError
from warehouse.core.paths import Paths
from warehouse.core.settings import Settings
from warehouse.core.sqlfiles import query_sql
from warehouse.home import generation
from warehouse.home.runs import read_runs
from warehouse.home.status import status
from warehouse.reports.history import history
from warehouse.reports.timeline import per_day, timeline

SCHEMA = "akw.report/v1"
RUNS = 10  # recent index runs shown


def _rows(con: Any, name: str) -> list[dict[str, Any]]:
    return db.rows(con, query_sql(name))


def _marts(paths: Paths, snippets: bool) -> dict[str, Any]:
    """Top actors and skills, the timeline of episodes by outcome (counts), and, only when configured, recent
    episode titles, from the published generation."""
    try:
        con, _gen = generation.open_current(paths.generations)
    except KnowledgeError:
        return {"actors": [], "skills": [], "episodes": [], "timeline": timeline([])}
    try:
        return {"actors": _rows(con, "report_top_actors"), "skills": _rows(con, "report_top_skills"),
                "episodes": _rows(con, "report_recent_episodes") if snippets else [],
                "timeline": timeline(per_day(con))}
    finally:
        con.close()


def collect(paths: Paths, settings: Settings, reports_dir: Path, now: datetime | None = None) -> dict[str, Any]:
    now = now or datetime.now(UTC)
    st = status(paths, settings, now=now)
    runs = [{k: r.get(k) for k in ("run_id", "mode", "outcome", "started_at", "duration_s", "index_rev")}
            for r in reversed(read_runs(paths)[-RUNS:])]
    return {"schema": SCHEMA, "generated_at": now.isoformat(timespec="seconds"), "snippets": settings.reports.snippets,
            "status": {k: st.get(k) for k in ("state", "enabled", "index_rev", "published_at", "next_run",
                                              "db_bytes", "counts", "last_run")},
            "sources": st.get("sources") or {}, "coverage": st.get("coverage") or [],
            "errors": st.get("errors") or [], "degradations": st.get("degradations") or [],
            "usage": st.get("usage") or {"days": 7, "by_surface": {}},  # counts only (FR-9)
            "runs": runs, "marts": _marts(paths, settings.reports.snippets), "history": history(reports_dir)}
