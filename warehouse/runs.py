"""The run log: one JSON line per reindex run in `state/runs.jsonl` (the `ak_index_run` mart reads it).

Kept on the ground floor, apart from the build, so `akw status` reads it without loading the
extract and build stacks (polars, pyarrow).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from warehouse.paths import Paths, private_dir


def runs_log(paths: Paths) -> Path:
    return paths.state_dir / "runs.jsonl"


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
