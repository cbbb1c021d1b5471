"""The schedule with an injected clock: times, timezone and DST edges, catch-up of only the latest
slot, stale-at-start, disabled, the index lock, two concurrent starters (real processes), and the
daemon as a real process stopped by SIGTERM with the index intact afterwards."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import akw_fixtures
import pytest

from warehouse.api import Warehouse
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.settings import Schedule
from warehouse.home import generation
from warehouse.home import schedule as sch
from warehouse.home.runs import read_runs

BERLIN = ZoneInfo("Europe/Berlin")
AKW = [sys.executable, "-m", "warehouse"]


def at(y: int, mo: int, d: int, h: int, mi: int = 0, fold: int = 0) -> datetime:
    return datetime(y, mo, d, h, mi, tzinfo=BERLIN, fold=fold)


def berlin(**kw: Any) -> Schedule:
    return Schedule(timezone="Europe/Berlin", **kw)


# -- pure time arithmetic ---------------------------------------------------------------------------
def test_default_times_twice_a_day_local() -> None:
    s = berlin()
    assert sch.next_run(s, at(2030, 6, 10, 10)) == at(2030, 6, 10, 15)
    assert sch.next_run(s, at(2030, 6, 10, 15)) == at(2030, 6, 11, 3)  # strictly after
    assert [t.astimezone(BERLIN).hour for t in sch.next_runs(s, at(2030, 6, 10, 16), 4)] == [3, 15, 3, 15]
    assert sch.latest_slot(s, at(2030, 6, 10, 14, 59)) == at(2030, 6, 10, 3)
    assert sch.next_run(Schedule(mode="manual"), at(2030, 6, 10, 10)) is None
    assert [t.astimezone(BERLIN).hour for t in sch.next_runs(berlin(mode="daily"), at(2030, 6, 10, 1), 2)] == [3, 3]


def test_a_skipped_hour_runs_once_at_the_instant_it_would_have_been() -> None:
    # 2030-03-31 (last Sunday of March): 02:00 CET -> 03:00 CEST; 02:30 never happens
    s = berlin(times=["02:30"])
    day = sch.slots(s, at(2030, 3, 30, 12), at(2030, 4, 1, 0))
    assert len(day) == 1
    assert day[0] == datetime(2030, 3, 31, 1, 30, tzinfo=UTC)  # = 03:30 CEST, an hour after 02:30 CET would be
    assert sch.next_run(s, at(2030, 3, 31, 1)).astimezone(UTC) == day[0]
    # two times that land on one instant run once; the real 03:00 CEST is 01:00 UTC
    both = sch.slots(berlin(times=["02:00", "03:00"]), at(2030, 3, 30, 12), at(2030, 4, 1, 0))
    assert both == [datetime(2030, 3, 31, 1, 0, tzinfo=UTC)]


def test_a_repeated_hour_runs_once_at_its_first_occurrence() -> None:
    # 2030-10-27 (last Sunday of October): 03:00 CEST -> 02:00 CET; 02:30 happens twice
    s = berlin(times=["02:30"])
    day = sch.slots(s, at(2030, 10, 26, 12), at(2030, 10, 28, 0))
    assert day == [datetime(2030, 10, 27, 0, 30, tzinfo=UTC)]  # 02:30 CEST, the first one
    first, second = at(2030, 10, 27, 2, 45, fold=0), at(2030, 10, 27, 2, 45, fold=1)
    assert second.astimezone(UTC) - first.astimezone(UTC) == timedelta(hours=1)
    assert sch.latest_missed(s, None, first) == day[0]
    # at the second 02:45 (an hour later, same wall time) the slot is done: no second run
    assert sch.latest_missed(s, day[0], second) is None
    # and the next one is tomorrow's, 25 hours after the first
    assert sch.next_run(s, second).astimezone(UTC) == datetime(2030, 10, 28, 1, 30, tzinfo=UTC)


def test_only_the_latest_missed_slot_is_caught_up() -> None:
    s = berlin()
    last = at(2030, 5, 6, 3).astimezone(UTC)  # Monday 03:00, then the machine slept until Thursday
    now = at(2030, 5, 9, 10)
    assert sch.latest_missed(s, last, now) == at(2030, 5, 9, 3).astimezone(UTC)
    assert sch.latest_missed(s, at(2030, 5, 9, 3), now) is None  # that one ran: nothing else is due
    none = berlin(catch_up="none")
    assert sch.latest_missed(none, last, now) is None  # 7 hours late: past the grace
    assert sch.latest_missed(none, last, at(2030, 5, 9, 3, 10)) == at(2030, 5, 9, 3).astimezone(UTC)


def test_stale_at_start() -> None:
    s, now = berlin(), at(2030, 5, 9, 10)
    done = {"last_slot": at(2030, 5, 9, 3).astimezone(UTC).isoformat()}
    old = [{"outcome": "published", "finished_at": (now - timedelta(hours=30)).astimezone(UTC).isoformat()}]
    fresh = [{"outcome": "noop", "finished_at": (now - timedelta(hours=2)).astimezone(UTC).isoformat()}]
    assert sch.due(s, old, done, now, at_start=True).reason == "stale"
    assert sch.due(s, old, done, now, at_start=False).reason is None  # only at a start
    assert sch.due(s, fresh, done, now, at_start=True).reason is None
    assert sch.due(berlin(run_on_start_if_stale=False), old, done, now, at_start=True).reason is None
    failed = [*old, {"outcome": "failed", "finished_at": now.astimezone(UTC).isoformat()}]
    assert sch.due(s, failed, done, now, at_start=True).reason == "stale"  # a failed run refreshes nothing


def test_a_good_run_after_the_slot_covers_it_unless_the_slot_writes_a_report() -> None:
    """Right after a manual reindex nothing is due (`schedule show` said "due now: yes"); a failed run covers
    nothing, and a schedule that writes reports still runs its slot for the report."""
    s, now = berlin(), at(2030, 5, 9, 10)
    after = [{"outcome": "published", "finished_at": at(2030, 5, 9, 9).astimezone(UTC).isoformat()}]
    before = [{"outcome": "published", "finished_at": at(2030, 5, 9, 2).astimezone(UTC).isoformat()}]
    assert sch.due(s, after, {}, now, at_start=False).reason is None
    assert sch.due(s, before, {}, now, at_start=False).reason == "slot"
    assert sch.due(s, [*before, {**after[0], "outcome": "failed"}], {}, now, at_start=False).reason == "slot"
    assert sch.due(s, after, {}, now, at_start=False, reports=True).reason == "slot"


def _run_before_the_slot(wh: Warehouse) -> None:
    """Date the home's runs a day back, so the latest slot is due at the daemon's start (a good run after
    the slot would cover it)."""
    log = wh.paths.runs_log
    back = (datetime.now(UTC) - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    runs = [{**r, "started_at": back, "finished_at": back} for r in read_runs(wh.paths)]
    log.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in runs), encoding="utf-8")


def test_timezones_are_iana_and_local_follows_tz(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError):
        Schedule(timezone="Mars/Olympus")
    monkeypatch.setenv("TZ", "Europe/Berlin")
    assert sch.zone_name("local") == "Europe/Berlin"  # DST-aware, not a fixed offset
    assert sch.next_run(Schedule(), at(2030, 3, 31, 1)) == at(2030, 3, 31, 3)


# -- on a real home ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("src")
    akw_fixtures.generate(out, sessions=12, seed=7)
    return out


def _home(src: Path, home: Path, **settings: str) -> Warehouse:
    wh = Warehouse.open(src / "dsh", src / "autoclaw", home)
    wh.config_set(["schedule.timezone=Europe/Berlin", *(f"{k}={v}" for k, v in settings.items())])
    return wh


def _env(wh: Warehouse) -> dict[str, str]:
    return {**os.environ, "AKW_HOME": str(wh.paths.home), "DSH_HOME": str(wh.paths.dsh_home),
            "AUTOCLAW_ROOT": str(wh.paths.autoclaw_root)}


def test_run_due_runs_the_latest_slot_once(src: Path, tmp_path: Path) -> None:
    wh = _home(src, tmp_path / "home")
    first = wh.schedule_run_due(now=at(2030, 5, 6, 3, 5))
    assert first["ran"] and first["reason"] == "slot" and first["run"]["outcome"] == "published"
    assert first["slot"] == at(2030, 5, 6, 3).isoformat()
    # (the run records carry the real clock, years before this injected one: later calls are not starts,
    # or the index would be stale by the injected clock)
    assert wh.schedule_run_due(now=at(2030, 5, 6, 9), at_start=False)["reason"] == "not_due"
    # three days away: five slots missed, one run, for the latest
    n = len(read_runs(wh.paths))
    late = wh.schedule_run_due(now=at(2030, 5, 9, 10), at_start=False)
    assert late["ran"] and late["slot"] == at(2030, 5, 9, 3).isoformat()
    assert wh.schedule_run_due(now=at(2030, 5, 9, 11), at_start=False)["reason"] == "not_due"
    assert len(read_runs(wh.paths)) == n + 1
    show = wh.schedule_show(now=at(2030, 5, 9, 11))
    assert show["next_runs"][0] == at(2030, 5, 9, 15).isoformat() and show["zone"] == "Europe/Berlin"
    assert show["last_run"]["run_id"] == late["run"]["run_id"] and show["due"]["due"] is True  # stale by the clock
    assert show["due"]["reason"] == "stale"
    # a start with that stale index (its last success is years before this clock) runs; a tick does not
    start = wh.schedule_run_due(now=at(2030, 5, 9, 11))
    assert start["ran"] and start["reason"] == "stale" and start["slot"] is None
    assert sch.read_state(wh.paths)["last_slot"] == at(2030, 5, 9, 3).astimezone(UTC).isoformat()  # unchanged


def test_a_scheduled_run_writes_the_report_when_asked(src: Path, tmp_path: Path) -> None:
    wh = _home(src, tmp_path / "home", **{"reports.on_schedule": "true"})
    doc = wh.schedule_run_due(now=at(2030, 5, 6, 3, 5))
    files = doc["run"]["report"]["files"]
    assert doc["run"]["outcome"] == "published" and doc["run"]["report"]["index_rev"] == doc["run"]["index_rev"]
    html = Path(files["html"])
    assert html.parent == wh.paths.home / "reports" and "<svg" in html.read_text(encoding="utf-8")
    quiet = _home(src, tmp_path / "quiet")  # off by default: a run writes no report
    assert "report" not in quiet.schedule_run_due(now=at(2030, 5, 6, 3, 5))["run"]


def test_disabled_runs_nothing_and_says_so(src: Path, tmp_path: Path) -> None:
    wh = _home(src, tmp_path / "home", enabled="false")
    doc = wh.schedule_run_due(now=at(2030, 5, 6, 3, 5))
    assert not doc["ran"] and doc["reason"] == "disabled" and doc["code"] == Code.DISABLED
    assert read_runs(wh.paths) == [] and not sch.state_file(wh.paths).exists()
    show = wh.schedule_show(now=at(2030, 5, 6, 3, 5))
    assert show["enabled"] is False and show["due"] == {"due": False, "reason": "disabled", "slot": None}


def test_a_held_index_lock_skips_and_the_slot_stays_due(src: Path, tmp_path: Path) -> None:
    wh = _home(src, tmp_path / "home")
    with generation.writer_lock(wh.paths):  # a manual reindex is running
        doc = wh.schedule_run_due(now=at(2030, 5, 6, 3, 5))
    assert not doc["ran"] and doc["reason"] == "locked" and doc["error"]["code"] == Code.LOCKED
    assert wh.schedule_run_due(now=at(2030, 5, 6, 3, 20), at_start=False)["ran"]  # retried by the next start


def test_bad_timezone_is_a_config_error(src: Path, tmp_path: Path) -> None:
    wh = Warehouse.open(src / "dsh", src / "autoclaw", tmp_path / "home")
    with pytest.raises(KnowledgeError) as e:
        wh.config_set(["schedule.timezone=Mars/Olympus"])
    assert e.value.code == Code.CONFIG_INVALID and e.value.details["key"] == "schedule.timezone"


def test_two_concurrent_starters_never_overlap(src: Path, tmp_path: Path) -> None:
    wh = _home(src, tmp_path / "home")
    # the real clock: the latest slot (today's 03:00 or 15:00, or yesterday's 15:00) is due, nothing has run
    cmd = [*AKW, "schedule", "run-due", "--json"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(wh))
             for _ in range(2)]
    docs = [json.loads(p.communicate(timeout=180)[0]) for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert sorted(d["ran"] for d in docs) == [False, True], docs
    assert next(d for d in docs if not d["ran"])["reason"] in ("busy", "not_due")
    runs = read_runs(wh.paths)
    assert [r["outcome"] for r in runs] == ["published"]  # one run, never two at once


def test_install_print_installs_nothing(src: Path, tmp_path: Path) -> None:
    wh = _home(src, tmp_path / "home")
    r = subprocess.run([*AKW, "schedule", "install", "--print", "--json"], capture_output=True, text=True,
                       env=_env(wh), timeout=60)
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and doc["installed"] is False
    assert doc["crontab"].startswith("*/15 * * * * ") and "schedule run-due" in doc["crontab"]
    assert "OnCalendar=*:0/15" in doc["systemd"]["akw-schedule.timer"]
    assert "ExecStart=" in doc["systemd"]["akw-schedule.service"]
    refused = subprocess.run([*AKW, "schedule", "install", "--json"], capture_output=True, text=True,
                             env=_env(wh), timeout=60)
    assert refused.returncode != 0 and json.loads(refused.stdout)["errors"][0]["code"] == Code.INVALID_REQUEST


# -- the daemon, a real process ------------------------------------------------------------------------
def _daemon(wh: Warehouse) -> subprocess.Popen[str]:
    return subprocess.Popen([*AKW, "daemon", "--tick", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=_env(wh))


def _wait_for(proc: subprocess.Popen[str], needle: str, timeout: float = 120) -> list[str]:
    assert proc.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        if needle in line:
            return lines
    raise AssertionError(f"{needle!r} not logged: {lines}")


def _verify(wh: Warehouse) -> dict[str, Any]:
    r = subprocess.run([*AKW, "reindex", "--mode", "verify", "--json"], capture_output=True, text=True,
                       env=_env(wh), timeout=120)
    return json.loads(r.stdout) | {"returncode": r.returncode}


def test_daemon_sigterm_mid_run_finishes_it_and_exits_cleanly(src: Path, tmp_path: Path) -> None:
    wh = _home(src, tmp_path / "home")
    wh.reindex()
    _run_before_the_slot(wh)
    wh.config_set(["index.code_max_file_bytes=400000"])  # a real build is due at the start's catch-up
    proc = _daemon(wh)
    lines = _wait_for(proc, "tick start")
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    _, rest = proc.communicate(timeout=180)
    log = "".join(lines) + rest
    assert proc.returncode == 0, log
    assert "SIGTERM: stopping" in log and "stopped" in log
    assert "after the current run" in log, log  # the signal came mid-run, and the run was finished
    assert read_runs(wh.paths)[-1]["outcome"] == "published"
    assert _verify(wh)["ok"] is True  # the published generation is what its lake builds
    # logs carry times, reasons, outcomes, ids and codes: every line is the daemon's, nothing else
    assert all(" akw daemon: " in line for line in log.splitlines() if line.strip())


@pytest.mark.parametrize(("raised", "code"), [("RunAbandoned", 0), ("KeyboardInterrupt", -signal.SIGINT)])
def test_an_abandoned_run_inside_exec_still_exits_cleanly(tmp_path: Path, raised: str, code: int) -> None:
    """The second signal can land while the run executes a string (dataclasses `exec`s the methods it makes,
    e.g. while polars imports a module): CPython then marks an exact KeyboardInterrupt "unhandled", and a
    `python -m` process that caught it and exited 0 dies by SIGINT (seen once in CI). The daemon's own
    subclass is caught the same and leaves a clean exit; the plain one shows the mechanism."""
    (tmp_path / "abandon_probe.py").write_text(
        "import sys\nfrom warehouse.daemon import RunAbandoned\n"
        f"try:\n    exec('raise {raised}')\nexcept KeyboardInterrupt:\n    pass\nsys.exit(0)\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "abandon_probe"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == code, done.stderr


def test_daemon_second_sigterm_abandons_the_run_safely(src: Path, tmp_path: Path) -> None:
    wh = _home(src, tmp_path / "home")
    wh.reindex()
    _run_before_the_slot(wh)
    published = generation.current(wh.paths.generations)
    wh.config_set(["index.code_max_file_bytes=300000"])
    proc = _daemon(wh)
    lines = _wait_for(proc, "tick start")
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    _, rest = proc.communicate(timeout=180)
    log = "".join(lines) + rest
    assert proc.returncode == 0, log
    assert "stopped" in log
    doc = _verify(wh)
    if "abandoning" in log:  # the run was cut short: the old generation is still the published one, intact
        assert generation.current(wh.paths.generations).path == published.path
        # cut during the build: a `cancelled` record; during the extract (before the build): none
        assert read_runs(wh.paths)[-1]["outcome"] in ("cancelled", "published")
        assert read_runs(wh.paths)[-1]["index_rev"] == published.index_rev or \
            read_runs(wh.paths)[-1]["outcome"] == "cancelled"
        assert not list(wh.paths.generations.glob("*.building*"))
        # only the not-yet-published extract differs; pointer, constraints and lake rows hold
        assert {m["check"] for m in doc["mismatches"]} <= {"index_rev"}
        assert sch.read_state(wh.paths).get("last_slot") is None  # the slot stays due
    else:  # the run had finished before the second signal
        assert doc["ok"] is True
    wh2 = Warehouse.open(wh.paths.dsh_home, wh.paths.autoclaw_root, wh.paths.home)
    assert wh2.search_text("deploy nginx", limit=3)["schema"] == "knowledge.search/v1"
