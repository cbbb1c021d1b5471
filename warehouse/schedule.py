"""When the next scheduled reindex is due (spec FR-2: twice daily at 03:00 and 15:00 local by default)."""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo

from warehouse.settings import Schedule


def _tz(name: str) -> tzinfo:
    if name == "local":
        return datetime.now().astimezone().tzinfo or ZoneInfo("UTC")
    return ZoneInfo(name)


def next_run(schedule: Schedule, now: datetime) -> datetime | None:
    """The first configured time strictly after `now` (aware), or None for manual schedules."""
    if schedule.mode == "manual" or not schedule.times:
        return None
    tz = _tz(schedule.timezone)
    local = now.astimezone(tz)
    candidates = []
    for day in (0, 1):
        base = (local + timedelta(days=day)).date()
        for t in schedule.times:
            hh, mm = (int(x) for x in t.split(":"))
            candidates.append(datetime(base.year, base.month, base.day, hh, mm, tzinfo=tz))
    return min(c for c in candidates if c > local)


def latest_missed(schedule: Schedule, last_run: datetime | None, now: datetime) -> datetime | None:
    """The most recent scheduled time in (last_run, now]; only the latest is caught up (FR-2.3)."""
    if schedule.mode == "manual" or not schedule.times or schedule.catch_up == "none":
        return None
    tz = _tz(schedule.timezone)
    local = now.astimezone(tz)
    slots = []
    for day in (-1, 0):
        base = (local + timedelta(days=day)).date()
        for t in schedule.times:
            hh, mm = (int(x) for x in t.split(":"))
            slots.append(datetime(base.year, base.month, base.day, hh, mm, tzinfo=tz))
    due = [s for s in slots if s <= local and (last_run is None or s > last_run)]
    return max(due) if due else None
