"""What `akw schedule show` and `akw schedule run-due` answer: the schedule's arithmetic (schedule.py)
applied to this home's run log and record.

The run itself and the report after it are the caller's (`Warehouse.reindex`, `Warehouse.report`):
they live in stages above the home, so they come in as callables.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.paths import Paths
from warehouse.core.settings import Settings
from warehouse.home import schedule as sch
from warehouse.home.runs import read_runs

Run = Callable[[], dict[str, Any]]


def show(paths: Paths, settings: Settings, now: datetime | None = None) -> dict[str, Any]:
    """The next slots, the last run, what is due now; answers when disabled too (it says so)."""
    now = (now or datetime.now(UTC)).astimezone(UTC)
    s = settings.schedule
    tz = sch.zone(s.timezone)
    runs = read_runs(paths)
    d = sch.due(s, runs, sch.read_state(paths), now, at_start=True, reports=settings.reports.on_schedule)
    last = runs[-1] if runs else None
    return {
        "enabled": settings.enabled, "mode": s.mode, "times": list(s.times), "timezone": s.timezone,
        "zone": sch.zone_name(s.timezone), "catch_up": s.catch_up, "stale_after_hours": s.stale_after_hours,
        "run_on_start_if_stale": s.run_on_start_if_stale, "reports": settings.reports.on_schedule,
        "now": now.astimezone(tz).isoformat(),
        "next_runs": [t.astimezone(tz).isoformat() for t in sch.next_runs(s, now)] if settings.enabled else [],
        "last_run": {k: last.get(k) for k in ("run_id", "mode", "outcome", "started_at", "finished_at",
                                                "duration_s", "index_rev")} if last else None,
        "last_scheduled": sch.read_state(paths) or None,
        "stale": d.stale,
        "due": {"due": settings.enabled and d.reason is not None,
                "reason": d.reason if settings.enabled else "disabled",
                "slot": d.slot.astimezone(tz).isoformat() if d.slot and settings.enabled else None},
    }


def run_due(paths: Paths, settings: Settings, reindex: Run, report: Run, now: datetime | None = None,
            at_start: bool = True) -> dict[str, Any]:
    """Run the due job once (the latest missed slot, or a stale index at start) and return.

    Under the schedule's starter lock, so two starters never run one slot twice; the reindex takes
    the index lock (a manual reindex holding it → `locked`, retried by the next start). A disabled
    warehouse runs nothing and says so. Retention purges happen inside reindex. `report` runs after
    a good run when `reports.on_schedule` is set."""
    now = (now or datetime.now(UTC)).astimezone(UTC)
    tz = sch.zone(settings.schedule.timezone)
    doc: dict[str, Any] = {"ran": False, "now": now.astimezone(tz).isoformat(), "reason": None, "slot": None}
    if not settings.enabled:
        return {**doc, "reason": "disabled", "code": Code.DISABLED.value,
                "message": "agent-knowledge is disabled: nothing runs (akw config set enabled=true)"}
    with sch.starter_lock(paths) as mine:
        if not mine:
            return {**doc, "reason": "busy", "message": "another scheduler is starting a run"}
        state = sch.read_state(paths)
        d = sch.due(settings.schedule, read_runs(paths), state, now, at_start, reports=settings.reports.on_schedule)
        if d.reason is None:
            nxt = sch.next_runs(settings.schedule, now, 1)
            return {**doc, "reason": "not_due", "next_run": nxt[0].astimezone(tz).isoformat() if nxt else None}
        doc.update(reason=d.reason, slot=d.slot.astimezone(tz).isoformat() if d.slot else None)
        try:
            run = reindex()
            result: dict[str, Any] = {k: run.get(k) for k in ("run_id", "outcome", "index_rev", "duration_s",
                                                              "generation")}
        except KnowledgeError as e:
            if e.code == Code.LOCKED.value:
                return {**doc, "reason": "locked", "error": e.to_dict()}
            result = {"outcome": "failed", "error": e.to_dict()}
        # (a KeyboardInterrupt — the daemon abandoning a run — records nothing: the slot stays due)
        if settings.reports.on_schedule and result.get("outcome") in ("published", "noop"):
            result["report"] = _report_summary(report)
        sch.write_state(paths, {"last_slot": d.slot.isoformat() if d.slot else state.get("last_slot"),
                                "last_started_at": now.isoformat(), "last_reason": d.reason,
                                "last_outcome": result.get("outcome"), "last_run_id": result.get("run_id")})
        return {**doc, "ran": True, "run": result}


def _report_summary(report: Run) -> dict[str, Any]:
    """A report that cannot be written is said in the run's answer; it never fails the run."""
    try:
        doc = report()
        return {"files": doc.get("files"), "index_rev": doc.get("index_rev")}
    except KnowledgeError as e:
        return {"error": e.to_dict()}
