"""Which lake a build reads: the local one, or (team backend) an exported catalog snapshot.

A build from a snapshot names the snapshot in `index_rev`; when the catalog cannot be reached the
machine builds from its own lake (`degraded`), and an explicit `--snapshot N` is refused instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.paths import Paths
from warehouse.core.settings import Settings
from warehouse.home.team import team_dir
from warehouse.indexing import index_rev
from warehouse.team.snapshot import export


@dataclass
class LakeChoice:
    root: Path
    rev: str
    team: dict[str, Any] = field(default_factory=dict)  # lake_id + snapshot_id, or degraded + error

    @property
    def local(self) -> bool:
        return "snapshot_id" not in self.team


def choose(paths: Paths, settings: Settings, assignments: str | None, snapshot: int | None,
           push: dict[str, Any] | None) -> LakeChoice:
    if settings.lake.backend != "ducklake":
        if snapshot is not None:
            raise KnowledgeError(Code.INVALID_REQUEST, "--snapshot needs lake.backend=ducklake", field="snapshot")
        return LakeChoice(paths.lake, index_rev.compute(paths.state_dir, settings, assignments))
    try:
        if push is not None and not push.get("ok"):  # the push just found the catalog away: do not wait twice
            raise KnowledgeError(Code.CATALOG_UNAVAILABLE, push.get("error", {}).get("message", "catalog away"))
        snap = export(settings.lake, team_dir(paths) / "snapshot", snapshot)
    except KnowledgeError as e:
        if e.code != Code.CATALOG_UNAVAILABLE.value or snapshot is not None:
            raise
        return LakeChoice(paths.lake, index_rev.compute(paths.state_dir, settings, assignments),
                          {"degraded": True, "error": e.to_dict()})
    rev = index_rev.compute_team(snap["lake_id"], snap["snapshot_id"], settings, assignments)
    return LakeChoice(team_dir(paths) / "snapshot", rev,
                      {"lake_id": snap["lake_id"], "snapshot_id": snap["snapshot_id"], "rows": snap["rows"]})
