"""The dispatch outbox: the warehouse's own records of committed `knowledge_dispatch` plans.

Not derived data: a generation can be deleted and rebuilt at any time, these files cannot
(they are what `ak_assignment` is built from at every build). One file per assignment,
`$AKW_HOME/outbox/assign-<hex>.json` (0600, folder 0700), holding the assignment row, the
`knowledge.handoff/v1` package and the response that recorded them, so the row and the
package exist together or not at all.

A record is written to a hidden temporary file, fsynced, then *hard-linked* to its final name:
the link fails if the name exists, so two writers of one assignment never both succeed and a
reader never sees half a file (a kill -9 leaves at most a `.tmp-*` file, which readers skip).
Kept on the records floor, below the build, because the build reads it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from warehouse.core.paths import Paths, private_dir
from warehouse.home.generation import fsync_path

RECORD_SCHEMA = "akw.outbox/v1"
_NAME = re.compile(r"assign-[0-9a-f]{24}\.json")


def assignment_id_for(dispatch_id: str) -> str:
    """The assignment id of a dispatch id: stable, so a repeat finds its record without an index."""
    return "assign:" + hashlib.sha256(dispatch_id.encode("utf-8")).hexdigest()[:24]


def record_path(paths: Paths, assignment_id: str) -> Path:
    return paths.outbox / (assignment_id.replace(":", "-", 1) + ".json")


def _ensure_dir(folder: Path) -> None:
    private_dir(folder)


def write_once(paths: Paths, record: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """Write `record` unless its assignment already has one: (created, the record now on disk)."""
    assignment_id = record["assignment"]["assignment_id"]
    final = record_path(paths, assignment_id)
    _ensure_dir(paths.outbox)
    tmp = paths.outbox / f".tmp-{final.stem}-{os.getpid()}"
    tmp.unlink(missing_ok=True)
    data = json.dumps(record, ensure_ascii=False, sort_keys=True, indent=1).encode("utf-8")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, final)
        created = True
    except FileExistsError:
        created = False
    finally:
        tmp.unlink(missing_ok=True)
    if not created:
        existing = read_one(paths, assignment_id)
        if existing is None:
            raise OSError(f"outbox record {final.name} exists but cannot be read")
        return False, existing
    fsync_path(paths.outbox)  # the new name is durable before the caller reports success
    return True, record


def read_one(paths: Paths, assignment_id: str) -> dict[str, Any] | None:
    try:
        doc = json.loads(record_path(paths, assignment_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("schema") == RECORD_SCHEMA else None


def read_all(paths: Paths) -> tuple[list[dict[str, Any]], list[str]]:
    """Every record, oldest first (then by id), and the names of files that could not be read."""
    if not paths.outbox.is_dir():
        return [], []
    records, bad = [], []
    for f in sorted(paths.outbox.iterdir()):
        if not _NAME.fullmatch(f.name):
            continue  # `.tmp-*` of a killed writer, or anything a person put there
        try:
            doc = json.loads(f.read_text(encoding="utf-8"))
            if doc.get("schema") != RECORD_SCHEMA:
                raise ValueError
        except (OSError, ValueError, AttributeError):
            bad.append(f.name)
            continue
        records.append(doc)
    records.sort(key=lambda r: (r["assignment"].get("created_at") or "", r["assignment"]["assignment_id"]))
    return records, bad


def assignment_rows(paths: Paths) -> list[str]:
    """The assignment rows as JSON lines: what the build loads into `ak_assignment`."""
    return [json.dumps(r["assignment"], ensure_ascii=False, sort_keys=True) for r in read_all(paths)[0]]


def digest(paths: Paths) -> str | None:
    """A hash of every recorded assignment, or None when there is none (it enters `index_rev`)."""
    rows = assignment_rows(paths)
    return hashlib.sha256("\n".join(rows).encode("utf-8")).hexdigest()[:16] if rows else None
