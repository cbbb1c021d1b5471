"""The report's timeline: episodes per day, week or month by outcome, and the success share per period.

Counts only (content-free). The period follows the span of the work so the chart stays readable: a month
of work is shown per day, up to about ten months per week, anything longer per month; empty periods are
kept (a gap in the work is part of the picture).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from warehouse.core import db
from warehouse.core.sqlfiles import query_sql

OUTCOMES = ("success", "partial", "failure", "cancelled", "running", "unknown")
DAYS_PER_DAY_UNIT = 31
DAYS_PER_WEEK_UNIT = 7 * 44


def per_day(con: Any) -> list[dict[str, Any]]:
    """(day, outcome, episodes) rows of the published generation (sql/queries/reports/report_timeline.sql)."""
    return db.rows(con, query_sql("report_timeline"))


def _start(d: date, unit: str) -> date:
    if unit == "week":
        return d - timedelta(days=d.weekday())  # the Monday of its ISO week
    if unit == "month":
        return d.replace(day=1)
    return d


def _next(d: date, unit: str) -> date:
    if unit == "month":
        return (d.replace(day=28) + timedelta(days=4)).replace(day=1)
    return d + timedelta(days=7 if unit == "week" else 1)


def _share(counts: dict[str, int]) -> float | None:
    """Success share of the finished episodes, partial counted as half (as `ak_actor.success_rate`)."""
    done = sum(counts.get(o, 0) for o in ("success", "partial", "failure", "cancelled"))
    return round((counts.get("success", 0) + 0.5 * counts.get("partial", 0)) / done, 4) if done else None


def timeline(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Rows of `per_day` as consecutive periods: {unit, periods, outcomes: {outcome: counts}, share, total}."""
    if not rows:
        return {"unit": "day", "periods": [], "outcomes": {}, "share": [], "total": 0}
    first, last = min(r["day"] for r in rows), max(r["day"] for r in rows)
    span = (last - first).days
    unit = "day" if span < DAYS_PER_DAY_UNIT else "week" if span < DAYS_PER_WEEK_UNIT else "month"
    periods, p = [], _start(first, unit)
    while p <= last:
        periods.append(p)
        p = _next(p, unit)
    index = {p: i for i, p in enumerate(periods)}
    seen = [o for o in OUTCOMES if any(r["outcome"] == o for r in rows)]
    seen += sorted({r["outcome"] for r in rows} - set(OUTCOMES))
    outcomes = {o: [0] * len(periods) for o in seen}
    for r in rows:
        outcomes[r["outcome"]][index[_start(r["day"], unit)]] += int(r["episodes"])
    share = [_share({o: c[i] for o, c in outcomes.items()}) for i in range(len(periods))]
    return {"unit": unit, "periods": [p.isoformat() for p in periods], "outcomes": outcomes, "share": share,
            "total": sum(sum(c) for c in outcomes.values())}
