"""The run log: one JSON line per reindex run in `state/runs.jsonl` (the `ak_index_run` mart reads it).

Kept on the ground floor, apart from the build, so `akw status` reads it without loading the
extract and build stacks (polars, pyarrow).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from warehouse.core.paths import Paths, private_dir


def runs_log(paths: Paths) -> Path:
    return paths.runs_log


def append_run(paths: Paths, record: dict[str, Any]) -> None:
    """Append one record; the file is created 0600 (records name sources and errors)."""
    private_dir(paths.state_dir)
    fd = os.open(runs_log(paths), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n")


def read_runs(paths: Paths) -> list[dict[str, Any]]:
    """Every readable record, oldest first; a torn last line (a crash mid-write) is skipped."""
    try:
        lines = runs_log(paths).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


# -- the run in progress: a marker a killed run leaves behind ------------------------------------
def _marker(paths: Paths) -> Path:
    return paths.run_marker


def mark_started(paths: Paths, info: dict[str, Any]) -> None:
    """Note that a run started (pid, mode, start time); `mark_finished` removes the note."""
    private_dir(paths.state_dir)
    tmp = paths.state_dir / f".run.inprogress.{os.getpid()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(json.dumps({**info, "pid": os.getpid()}, sort_keys=True))
    tmp.replace(_marker(paths))


def mark_finished(paths: Paths) -> None:
    _marker(paths).unlink(missing_ok=True)


def run_in_progress(paths: Paths) -> dict[str, Any] | None:
    """The marker of a run that has not finished: `alive` says whether its process still runs
    (False: it was killed, e.g. kill -9 or a power cut, before it could record an outcome)."""
    try:
        info = json.loads(_marker(paths).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    pid = info.get("pid")
    alive = False
    if isinstance(pid, int) and pid > 0:
        try:
            os.kill(pid, 0)
            alive = True
        except ProcessLookupError:
            alive = False
        except PermissionError:
            alive = True
    return {**info, "alive": alive}
