"""`akw daemon`: a foreground loop that runs what the schedule says is due (docs/operations.md "Schedule").

Each tick opens the warehouse anew (so `akw config set` changes, `enabled` included, apply without a
restart) and calls `Warehouse.schedule_run_due`, the same one-shot that cron or a systemd timer
calls; the first tick is a start (a stale index runs at once). Between ticks it sleeps until the
next slot, at most `tick_s`. SIGTERM/SIGINT: idle, it exits at once; during a run it lets the run
finish (it publishes or fails as it would have), then exits. A second signal abandons the run
through reindex's cancellation path (the build file is removed, a `cancelled` run is recorded, the
published generation is untouched, and the slot stays due for the next start). Logs carry
times, reasons, outcomes, ids and codes, never indexed content.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from datetime import UTC, datetime
from types import FrameType
from typing import Any

from warehouse.api import Warehouse
from warehouse.core.errors import KnowledgeError
from warehouse.home.schedule import next_runs

Log = Callable[[str], None]


class RunAbandoned(KeyboardInterrupt):
    """The second signal's interrupt: a KeyboardInterrupt to everything that cleans up after one (reindex's
    cancellation path), but not of that exact type. CPython notes an exact KeyboardInterrupt that leaves an
    `exec` of a string (dataclasses builds methods so, e.g. while polars imports a module mid-run) as
    "unhandled" and, run as `python -m`, ends the process with SIGINT after a clean `exit(0)`."""


def _summary(doc: dict[str, Any]) -> str:
    run = doc.get("run") or {}
    parts = [f"reason={doc.get('reason')}"]
    if doc.get("slot"):
        parts.append(f"slot={doc['slot']}")
    if doc.get("ran"):
        parts += [f"outcome={run.get('outcome')}", f"index_rev={run.get('index_rev')}",
                  f"duration_s={run.get('duration_s')}"]
        if run.get("error"):
            parts.append(f"code={run['error'].get('code')}")
    elif doc.get("next_run"):
        parts.append(f"next_run={doc['next_run']}")
    return ("ran " if doc.get("ran") else "idle ") + " ".join(parts)


def run_daemon(open_warehouse: Callable[[], Warehouse], log: Log, tick_s: float = 60.0) -> int:
    """Loop until SIGTERM/SIGINT; returns the exit code (0 for a clean stop)."""
    stopping = False
    running = False

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        name = signal.Signals(signum).name
        if running and stopping:
            log(f"{name} again: abandoning the current run")
            raise RunAbandoned
        log(f"{name}: stopping" + (" after the current run (signal again to abandon it)" if running else ""))
        stopping = True

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    log(f"started tick_s={tick_s:g}")
    first = True
    try:
        while not stopping:
            wait = tick_s
            try:
                running = True
                with open_warehouse() as wh:  # closed after the tick: a tick's searches keep nothing open
                    if stopping:
                        break
                    log("tick " + ("start" if first else "scheduled"))
                    doc = wh.schedule_run_due(at_start=first)
                    running = False
                    log(_summary(doc))
                    schedule = wh.settings.schedule
                nxt = next_runs(schedule, datetime.now(UTC), 1)
                if nxt:
                    wait = max(1.0, min(tick_s, (nxt[0] - datetime.now(UTC)).total_seconds() + 1))
            except KeyboardInterrupt:
                log("run abandoned; the published index is untouched")
                break
            except KnowledgeError as e:
                log(f"error code={e.code}")  # e.g. a configuration error: retried next tick
            finally:
                running = False
            first = False
            deadline = time.monotonic() + wait
            while not stopping and time.monotonic() < deadline:
                time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    log("stopped")
    return 0
