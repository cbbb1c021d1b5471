"""`akw index delete`: remove the whole derived index (FR-1.2), e.g. on `akw disable --delete-index`.

Derived and rebuildable, so deleted: `generations/` (every DuckDB file, WAL, vectors), `lake/` and
`state/` (cursors, unit states, the run log). Kept: `config.yaml` (the user's settings), `tombstones.json`
(what was forgotten stays forgotten), `outbox/` (committed dispatches are records, not derived data)
and stores of other features (feedback). Without `confirm` it only counts.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.paths import Paths
from warehouse.home import generation


def _targets(paths: Paths) -> dict[str, Path]:
    return {"generations": paths.generations, "lake": paths.lake, "state": paths.state_dir}


def _size(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()] if folder.is_dir() else []
    return len(files), sum(p.stat().st_size for p in files)


def delete_index(paths: Paths, confirm: bool = False) -> dict[str, Any]:
    plan = {name: dict(zip(("files", "bytes"), _size(p), strict=True)) for name, p in _targets(paths).items()}
    if not confirm:
        return {"confirmed": False, "would_remove": plan,
                "note": "dry run: nothing was removed; repeat with --yes (confirm: true) to delete the index"}
    with generation.writer_lock(paths):
        for p in _targets(paths).values():
            shutil.rmtree(p, ignore_errors=True)
    left = sorted(name for name, p in _targets(paths).items() if p.exists())
    if left:
        raise KnowledgeError(Code.DELETE_PARTIAL, f"could not remove: {', '.join(left)}", remaining=left)
    return {"confirmed": True, "removed": plan, "index_rev": None}
