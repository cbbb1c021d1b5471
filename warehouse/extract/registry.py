"""Read the DSH workspace registry (`storages/workspace.json`, SOURCES.md §1.3) for the skills and code jobs.

The registry is optional: a missing file means "no workspaces"; a corrupt one also yields no
workspaces plus an error message, so the caller can degrade instead of failing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Workspace:
    id: str
    path: str
    title: str | None = None
    archived: bool = False


def registry_file(dsh_home: Path) -> Path:
    return dsh_home / "storages" / "workspace.json"


def read_workspaces(dsh_home: Path) -> tuple[list[Workspace], str | None]:
    """Workspaces with an id and a path, sorted by id; second item is an error message or None."""
    f = registry_file(dsh_home)
    if not f.exists():
        return [], None
    try:
        data = json.loads(f.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError) as e:
        return [], f"workspace.json unreadable: {type(e).__name__}"
    items = data.get("workspaces") if isinstance(data, dict) else data
    if not isinstance(items, list):
        return [], "workspace.json: no 'workspaces' list"
    out: dict[str, Workspace] = {}
    for w in items:
        if not isinstance(w, dict):
            continue
        wid, path = w.get("id"), w.get("path")
        if not isinstance(wid, str) or not wid or not isinstance(path, str) or not path:
            continue
        title = w.get("title")
        out.setdefault(wid, Workspace(wid, str(Path(path).expanduser()),
                                      title if isinstance(title, str) else None, bool(w.get("archived"))))
    return [out[k] for k in sorted(out)], None
