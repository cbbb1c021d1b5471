"""When scheduled reindex runs are due (spec FR-2: twice daily at 03:00 and 15:00 local by default).

Pure time arithmetic over an injected clock, plus the schedule's own small record
(`state/schedule.json`: the last slot it ran for) and the lock that keeps two schedulers apart.

DST (zoneinfo, no cron library): a slot is a wall-clock time in the schedule's IANA zone, turned
into an instant with `fold=0`. A time the clocks skip (02:30 on the last Sunday of March in
Europe/Berlin) runs at the instant it would have been, i.e. 03:30 the new time, once; a time the
clocks repeat (02:30 on the last Sunday of October) runs once, at its first occurrence. Every
comparison is between UTC instants: two aware datetimes with the same tzinfo compare by wall time
in Python, which is wrong across a repeated hour.

Missed slots: only the latest one is caught up (`catch_up: latest`); with `catch_up: none` a slot
is due only within GRACE of its time. Stale at start: a starter (`akw schedule run-due`, the
daemon's first tick) runs when the last successful run is older than `stale_after_hours`.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.paths import Paths
from warehouse.core.settings import Schedule

GRACE = timedelta(minutes=30)  # catch_up: none — how late a slot may still start
LOOKBACK_DAYS = 3  # how far back the latest slot is looked for (a slot a day at least)


def _local_zone() -> tzinfo:
    """The machine's IANA zone (DST-aware): $TZ, else /etc/localtime's target, else a fixed offset."""
    candidates = [os.environ.get("TZ", "").lstrip(":")]
    try:
        target = os.path.realpath("/etc/localtime")
        candidates.append(target.split("zoneinfo/", 1)[1] if "zoneinfo/" in target else "")
    except OSError:
        pass
    for name in candidates:
        if name:
            try:
                return ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                continue
    return datetime.now().astimezone().tzinfo or UTC


def zone(name: str) -> tzinfo:
    """The schedule's zone; an unknown IANA name is a configuration error, never a silent UTC."""
    if name == "local":
        return _local_zone()
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise KnowledgeError(Code.CONFIG_INVALID, f"schedule.timezone: unknown IANA zone {name!r}",
                             key="schedule.timezone") from None


def zone_name(name: str) -> str:
    z = zone(name)
    return getattr(z, "key", None) or str(z)


def _times(schedule: Schedule) -> list[tuple[int, int]]:
    if schedule.mode == "manual" or not schedule.times:
        return []
    times = sorted({(int(t[:2]), int(t[3:])) for t in schedule.times})
    return times[:1] if schedule.mode == "daily" else times


def slots(schedule: Schedule, start: datetime, end: datetime) -> list[datetime]:
    """The slot instants (UTC) in (start, end], oldest first, each once."""
    tz = zone(schedule.timezone)
    times = _times(schedule)
    if not times:
        return []
    first, last = start.astimezone(tz).date() - timedelta(days=1), end.astimezone(tz).date() + timedelta(days=1)
    out: set[datetime] = set()
    day = first
    while day <= last:
        for hh, mm in times:
            at = datetime(day.year, day.month, day.day, hh, mm, tzinfo=tz, fold=0).astimezone(UTC)
            if start.astimezone(UTC) < at <= end.astimezone(UTC):
                out.add(at)
        day += timedelta(days=1)
    return sorted(out)


def next_runs(schedule: Schedule, now: datetime, count: int = 3) -> list[datetime]:
    """The next `count` slots strictly after `now` (UTC instants)."""
    if not _times(schedule):
        return []
    found: list[datetime] = []
    span = 2
    while len(found) < count and span < 400:
        found = slots(schedule, now, now + timedelta(days=span))
        span *= 2
    return found[:count]


def next_run(schedule: Schedule, now: datetime) -> datetime | None:
    """The first slot strictly after `now` (aware, in the schedule's zone), or None for manual schedules."""
    nxt = next_runs(schedule, now, 1)
    return nxt[0].astimezone(zone(schedule.timezone)) if nxt else None


def latest_slot(schedule: Schedule, now: datetime) -> datetime | None:
    """The most recent slot at or before `now` (UTC), looking back LOOKBACK_DAYS."""
    past = slots(schedule, now - timedelta(days=LOOKBACK_DAYS), now)
    return past[-1] if past else None


def latest_missed(schedule: Schedule, last_run: datetime | None, now: datetime) -> datetime | None:
    """The most recent slot in (last_run, now] (only the latest is caught up), or None."""
    slot = latest_slot(schedule, now)
    if slot is None or (last_run is not None and slot <= last_run.astimezone(UTC)):
        return None
    if schedule.catch_up == "none" and now.astimezone(UTC) - slot > GRACE:
        return None
    return slot


def parse_ts(ts: Any) -> datetime | None:
    if not isinstance(ts, str) or not ts:
        return None
    try:
        out = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None
    return out if out.tzinfo else out.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Due:
    reason: str | None  # "slot" | "stale" | None (nothing is due)
    slot: datetime | None  # the slot a "slot" run is for (UTC)
    stale: bool  # the last successful run is older than stale_after_hours (or there is none)


def due(schedule: Schedule, runs: list[dict[str, Any]], state: dict[str, Any], now: datetime,
        at_start: bool, reports: bool = False) -> Due:
    """What a starter should run now. `runs`: runs.jsonl records; `state`: the schedule record. A good run
    (manual or not) that finished after a slot covers it, unless the slot also writes a report (`reports`)."""
    ok = [parse_ts(r.get("finished_at")) for r in runs if r.get("outcome") in ("published", "noop")]
    last_ok = max((t for t in ok if t is not None), default=None)
    stale = last_ok is None or now.astimezone(UTC) - last_ok > timedelta(hours=schedule.stale_after_hours)
    covered = parse_ts(state.get("last_slot"))
    if last_ok is not None and not reports:  # a reindex after the slot already made the index fresh
        covered = max(covered or last_ok, last_ok)
    slot = latest_missed(schedule, covered, now)
    if slot is not None:
        return Due("slot", slot, stale)
    if at_start and stale and schedule.run_on_start_if_stale and schedule.mode != "manual":
        return Due("stale", None, stale)
    return Due(None, None, stale)


# -- the schedule's own record and lock --------------------------------------------------------------
def state_file(paths: Paths) -> Path:
    return paths.schedule_state


def read_state(paths: Paths) -> dict[str, Any]:
    try:
        doc = json.loads(state_file(paths).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def write_state(paths: Paths, doc: dict[str, Any]) -> None:
    """Replace the record atomically (0600): a crash leaves the old one or the new one."""
    paths.state_dir.mkdir(parents=True, exist_ok=True)
    f = state_file(paths)
    tmp = f.with_name(f".tmp-schedule-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(doc, sort_keys=True) + "\n")
        out.flush()
        os.fsync(out.fileno())
    tmp.replace(f)


@contextmanager
def starter_lock(paths: Paths) -> Iterator[bool]:
    """Yields True for the one starter that holds `schedule.lock`, False (at once) for any other:
    the due check and the run happen under it, so two starters never run one slot twice."""
    paths.home.mkdir(parents=True, exist_ok=True)
    fd = os.open(paths.schedule_lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


# -- what `akw schedule install --print` prints -------------------------------------------------------
INSTALL_EVERY = "15 minutes"  # run-due decides what is due, so the timer only needs to tick often enough


def _akw_command() -> str:
    beside = Path(sys.executable).parent / "akw"  # the venv's entry point, if this is one
    return shlex.quote(str(beside)) if beside.exists() else f"{shlex.quote(sys.executable)} -m warehouse"


def install_texts(paths: Paths) -> dict[str, Any]:
    """A crontab line and a systemd user service + timer that call `akw schedule run-due` every 15 minutes.

    Nothing is installed: the texts are printed for a person to place. The timer ticks often and
    `run-due` decides (slots, catch-up, stale-at-start, the locks), so a changed `schedule.times`
    needs no reinstall and the schedule's own timezone applies, whatever the system's is."""
    akw = _akw_command()
    env = {"AKW_HOME": str(paths.home), "DSH_HOME": str(paths.dsh_home), "AUTOCLAW_ROOT": str(paths.autoclaw_root)}
    env_words = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    crontab = f"*/15 * * * * {env_words} {akw} schedule run-due --json >/dev/null 2>&1"
    service = "\n".join([
        "[Unit]", "Description=Agent Knowledge Warehouse: run a due reindex (akw schedule run-due)", "",
        "[Service]", "Type=oneshot", *(f'Environment="{k}={v}"' for k, v in env.items()),
        f"ExecStart={akw} schedule run-due --json", "Nice=10", "IOSchedulingClass=idle", ""])
    timer = "\n".join([
        "[Unit]", "Description=Agent Knowledge Warehouse schedule (every 15 minutes; run-due decides)", "",
        "[Timer]", "OnCalendar=*:0/15", "Persistent=true", "RandomizedDelaySec=60", "",
        "[Install]", "WantedBy=timers.target", ""])
    return {
        "installed": False,
        "crontab": crontab,
        "systemd": {"akw-schedule.service": service, "akw-schedule.timer": timer},
        "steps": ["crontab -e  # add the crontab line, or:",
                  "put both units in ~/.config/systemd/user/, then: systemctl --user daemon-reload && "
                  "systemctl --user enable --now akw-schedule.timer",
                  "or run `akw daemon` in the foreground (a service manager restarts it)"],
    }
