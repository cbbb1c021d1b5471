"""The one call extract makes in team mode: push, and when the catalog is away, say so and go on."""

from __future__ import annotations

from typing import Any

import duckdb

from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.paths import Paths
from warehouse.core.settings import Settings
from warehouse.home.team import record_push, team_dir
from warehouse.team.catalog import reason as catalog_reason
from warehouse.team.push import push


def push_or_degrade(paths: Paths, settings: Settings, finished_at: str) -> dict[str, Any]:
    """Push the local lake; an unreachable catalog is `degraded` (local work goes on, the next push catches up)."""
    try:
        result: dict[str, Any] = {"ok": True, **push(paths.lake, paths.state_dir, settings.lake,
                                                     team_dir(paths) / "scratch")}
    except KnowledgeError as e:
        if e.code != Code.CATALOG_UNAVAILABLE.value:
            raise
        result = {"ok": False, "degraded": True, "error": e.to_dict()}
    except (duckdb.IOException, duckdb.ConnectionException) as e:  # the catalog went away mid-push:
        # nothing is half-committed, the next push redoes what did not commit
        err = KnowledgeError(Code.CATALOG_UNAVAILABLE, f"team push interrupted: {catalog_reason(e)}")
        result = {"ok": False, "degraded": True, "error": err.to_dict()}
    except duckdb.Error as e:  # anything else is a bug to see, but the local index still gets built
        err = KnowledgeError(Code.INTERNAL, f"team push failed: {catalog_reason(e)}")
        result = {"ok": False, "degraded": False, "error": err.to_dict()}
    result["at"] = finished_at
    record_push(paths, result)
    return result
