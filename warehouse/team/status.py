"""`akw team status`: the writers, their last commit, the catalog's snapshot and this machine's lag.

Reads the catalog when it answers; when it does not, answers from this machine's records with
state `degraded` (local work goes on; the next push catches up).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from warehouse.core.errors import KnowledgeError
from warehouse.core.paths import Paths
from warehouse.core.settings import Settings
from warehouse.home import generation
from warehouse.home.runs import read_runs
from warehouse.home.team import read_push
from warehouse.team import catalog
from warehouse.team.push import STATE_SOURCE, local_units


def _built_snapshot(paths: Paths) -> int | None:
    """The snapshot the published generation was built from (None: a local or no build)."""
    gen = generation.current(paths.generations)
    if gen is None:
        return None
    for run in reversed(read_runs(paths)):
        if run.get("index_rev") == gen.index_rev and run.get("outcome") in ("published", "noop"):
            return (run.get("team") or {}).get("snapshot_id")
    return None


def team_status(paths: Paths, settings: Settings) -> dict[str, Any]:
    cfg = settings.lake
    out: dict[str, Any] = {"backend": cfg.backend, "writer_id": cfg.writer_id, "data_path": cfg.data_path,
                           "push": read_push(paths), "built_snapshot_id": _built_snapshot(paths)}
    if cfg.backend != "ducklake":
        return {**out, "state": "local", "writers": []}
    try:
        con = catalog.open_lake(cfg)
    except KnowledgeError as e:
        return {**out, "state": "degraded", "errors": [e.to_dict()], "writers": []}
    try:
        lake_id = catalog.lake_id(con)
        if lake_id is None:
            return {**out, "state": "uninitialised", "writers": []}
        now = datetime.now(UTC)
        current = catalog.current_snapshot(con)
        snaps = con.execute(f"SELECT snapshot_id, author FROM ducklake_snapshots('{catalog.ALIAS}') "
                            "WHERE author IS NOT NULL").fetchall()
        last_snap: dict[str, int] = {}
        for sid, author in snaps:
            last_snap[author] = max(sid, last_snap.get(author, -1))
        writers = []
        for w, at, units in con.execute(f"SELECT writer_id, last_commit_at, units FROM {catalog.WRITERS} "
                                        "ORDER BY writer_id").fetchall():
            writers.append({"writer_id": w, "last_commit_at": at.astimezone(UTC).isoformat() if at else None,
                            "last_snapshot_id": last_snap.get(w), "units": units,
                            "lag_s": round((now - at).total_seconds(), 1) if at else None})
        remote = {(s, k): d for s, k, d in con.execute(
            f"SELECT source, unit_key, digest FROM {catalog.UNITS} WHERE writer_id = ?", [cfg.writer_id]).fetchall()
            if s != STATE_SOURCE}
    finally:
        con.close()
    local = local_units(paths.lake)
    unpushed = sum(1 for k, u in local.items() if remote.get(k) != u.digest) + sum(1 for k in remote if k not in local)
    built = out["built_snapshot_id"]
    return {**out, "state": "ready" if unpushed == 0 else "behind", "lake_id": lake_id, "snapshot_id": current,
            "snapshots": len(snaps), "writers": writers, "unpushed_units": unpushed,
            "lag_snapshots": None if built is None else current - built}
