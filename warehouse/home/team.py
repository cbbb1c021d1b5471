"""This machine's record of its last push (`$AKW_HOME/team/push.json`): what `status` reads without the network."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from warehouse.core.paths import Paths


def team_dir(paths: Paths) -> Path:
    return paths.team_dir


def record_push(paths: Paths, result: dict[str, Any]) -> None:
    d = team_dir(paths)
    d.mkdir(parents=True, exist_ok=True)
    os.chmod(d, 0o700)
    prev = read_push(paths)
    doc = {**prev, "last_attempt": result}
    if result.get("ok"):
        doc["last_ok"] = result
    tmp = d / ".push.json.tmp"
    tmp.write_text(json.dumps(doc, sort_keys=True, default=str), encoding="utf-8")
    os.chmod(tmp, 0o600)
    tmp.replace(paths.team_push)


def read_push(paths: Paths) -> dict[str, Any]:
    try:
        return json.loads(paths.team_push.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
