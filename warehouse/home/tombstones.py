"""The content-free list of forgotten items, `$AKW_HOME/tombstones.json`, consulted at extract.

`akw forget` adds one entry per forgotten id; every extractor treats a tombstoned session,
workspace, actor or skill exactly like a configured exclusion, so the next reindex (full
included) never brings it back. Entries are salted hashes of `kind` + id, never the id or any
text: the file must itself pass the residue scan of `akw forget`. Kept outside `state/`, which
`reindex --mode full` and `akw index delete` remove.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable

from warehouse.core.paths import Paths

KINDS = ("session", "workspace", "actor", "skill")
_SALT = "akw-tombstone/v1"


def entry(kind: str, value: str) -> str:
    return hashlib.sha256(f"{_SALT}\x00{kind}\x00{value}".encode()).hexdigest()


class Tombstones:
    """Loaded once per run; `has` is a set lookup on hashes."""

    def __init__(self, paths: Paths) -> None:
        self.path = paths.tombstones
        self.hashes: set[str] = set()
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.hashes = {h for h in data.get("entries", []) if isinstance(h, str)}
        except (OSError, ValueError, AttributeError):
            pass  # none yet (a corrupt file is rewritten by the next forget)

    def has(self, kind: str, *values: str | None) -> bool:
        return bool(self.hashes) and any(v and entry(kind, v) in self.hashes for v in values)

    def add(self, kind: str, values: Iterable[str]) -> int:
        before = len(self.hashes)
        self.hashes |= {entry(kind, v) for v in values if v}
        return len(self.hashes) - before

    def digest(self) -> str:
        """Enters extractor fingerprints, so a new tombstone re-reads the units it may hide in."""
        return hashlib.sha256("\n".join(sorted(self.hashes)).encode()).hexdigest()[:16] if self.hashes else ""

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        tmp.write_text(json.dumps({"schema": "akw.tombstones/v1", "entries": sorted(self.hashes)}, indent=0),
                       encoding="utf-8")
        os.chmod(tmp, 0o600)
        tmp.replace(self.path)
