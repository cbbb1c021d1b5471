"""`index_rev`: a hash of everything that decides the index's content and order.

Inputs: every source unit's content revision and status, the model and build SQL (not query templates), the
index-affecting settings, the package version and (once there is one) the recorded dispatch assignments.
No clocks, no paths of the warehouse:
the same input gives the same rev, on any machine.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from warehouse import __version__
from warehouse.core.settings import Settings
from warehouse.core.sqlfiles import index_hash
from warehouse.home.state import load_all_units


def compute(state_dir: Path, settings: Settings, assignments: str | None = None) -> str:
    """`assignments`: `outbox.digest` of the home (None: no assignment yet, and the rev is as before)."""
    units = [(u.get("source"), u.get("unit"), u.get("revision"), u.get("status"), u.get("error_code"))
             for u in load_all_units(state_dir)]
    payload: dict[str, Any] = {
        "units": units,
        "sql": index_hash(),
        "settings": settings.index_affecting(),
        "version": __version__,
    }
    if assignments is not None:  # a new commit makes the next incremental build refresh ak_assignment
        payload["assignments"] = assignments
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()
    return f"ak-{digest[:16]}"


def compute_team(lake_id: str, snapshot_id: int, settings: Settings, assignments: str | None = None) -> str:
    """The rev of a build from a team-lake snapshot: the snapshot names every writer's units, so it replaces
    the local unit list; the same snapshot of the same lake gives the same rev on any machine."""
    payload: dict[str, Any] = {
        "team_lake": lake_id,
        "snapshot": snapshot_id,
        "sql": index_hash(),
        "settings": settings.index_affecting(),
        "version": __version__,
    }
    if assignments is not None:
        payload["assignments"] = assignments
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()
    return f"ak-{digest[:16]}"
