"""Read the DSH workspace registry (`storages/workspace.json`, SOURCES.md §1.3): one reader, one set of rules.

The dsh job lands the registry itself (and maps sessions to workspaces); the skills and code jobs
need the workspaces' folders. All three read it here, so they agree on what a registry is:
- a JSON object with a `workspaces` list (a bare list is accepted too), UTF-8 with or without BOM;
- an entry counts when it has a non-empty string `id`; the first entry of an id wins;
- a workspace has a folder when its `path` is a non-empty string (`~` expanded).
The registry is optional: a missing file means "no workspaces"; an unreadable or malformed one
yields no workspaces plus an error message, so the caller can keep its last good data and say so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Workspace:
    id: str
    path: str
    title: str | None = None
    archived: bool = False


@dataclass
class Registry:
    raw: bytes | None = None  # the file's bytes (None: no file)
    error: str | None = None  # why the file is not a registry
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> entry, first occurrence

    def workspaces(self) -> list[Workspace]:
        """Entries with a folder, sorted by id."""
        out = []
        for wid in sorted(self.entries):
            w = self.entries[wid]
            path, title = w.get("path"), w.get("title")
            if isinstance(path, str) and path:
                out.append(Workspace(wid, str(Path(path).expanduser()), title if isinstance(title, str) else None,
                                     bool(w.get("archived"))))
        return out


def registry_file(dsh_home: Path) -> Path:
    return dsh_home / "storages" / "workspace.json"


def read_registry(dsh_home: Path) -> Registry:
    try:
        raw = registry_file(dsh_home).read_bytes()
    except FileNotFoundError:
        return Registry()
    except OSError as e:
        return Registry(raw=b"", error=f"workspace.json unreadable: {type(e).__name__}")
    try:
        data = json.loads(raw)
    except ValueError as e:
        return Registry(raw=raw, error=f"workspace.json unreadable: {type(e).__name__}")
    items = data.get("workspaces") if isinstance(data, dict) else data
    if not isinstance(items, list):
        return Registry(raw=raw, error="workspace.json: no 'workspaces' list")
    reg = Registry(raw=raw)
    for w in items:
        if isinstance(w, dict) and isinstance(w.get("id"), str) and w["id"] and w["id"] not in reg.entries:
            reg.entries[w["id"]] = w
    return reg


def read_workspaces(dsh_home: Path) -> tuple[list[Workspace], str | None]:
    """Workspaces with an id and a path, sorted by id; second item is an error message or None."""
    reg = read_registry(dsh_home)
    return reg.workspaces(), reg.error
