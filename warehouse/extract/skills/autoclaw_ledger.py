"""AutoClaw skill bookkeeping next to the skill folders (SOURCES.md §2.1): ledger, bundles, tombstones.

All three files are optional and may be hand-edited or half-written: bad entries are skipped and
a bad file yields an error message, never an exception, so the skills themselves still index.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

LEDGER = "skills-preinstall.json"
TOMBSTONES = ".tombstones.json"
BUNDLES_DIR = ".zwork-bundles"
BUNDLE_FILE = ".zwork-bundle.json"


@dataclass(frozen=True)
class LedgerEntry:
    version: str | None
    content_sha256: str | None  # lower-case hex, "sha256:" prefix removed
    byte_length: int | None
    deployed_at: str | None


@dataclass
class AutoclawExtras:
    ledger: dict[str, LedgerEntry] = field(default_factory=dict)
    removed_at: dict[str, str | None] = field(default_factory=dict)  # tombstoned skillId -> removedAt
    bundles: dict[str, list[str]] = field(default_factory=dict)  # skillId -> sorted bundle ids
    errors: list[str] = field(default_factory=list)

    def entry_keys(self) -> set[str]:
        return set(self.ledger) | set(self.removed_at) | set(self.bundles)

    def entry(self, skill_id: str) -> dict[str, Any]:
        """Everything known about one skill, JSON-able (it enters the unit's cursor)."""
        led = self.ledger.get(skill_id)
        return {
            "ledger": led.__dict__ if led else None,
            "tombstone": [self.removed_at[skill_id]] if skill_id in self.removed_at else None,
            "bundles": self.bundles.get(skill_id, []),
        }


def timestamp(value: Any) -> str | None:
    """Epoch seconds/milliseconds -> ISO-8601 UTC; strings pass through."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        secs = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(secs, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        except (OverflowError, OSError, ValueError):
            return None
    return str(value)


def _load(path: Path, errors: list[str]) -> Any:
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError) as e:
        errors.append(f"{path.name}: unreadable ({type(e).__name__})")
        return None


def _records(data: Any, key: str) -> list[dict[str, Any]]:
    """Accept a bare list or `{key: [...]}`; keep dict entries with a string skillId."""
    if isinstance(data, dict):
        data = data.get(key)
    if not isinstance(data, list):
        return []
    return [r for r in data if isinstance(r, dict) and isinstance(r.get("skillId"), str)]


def _sha(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    return value.strip().lower().removeprefix("sha256:")


def read_extras(skills_root: Path) -> AutoclawExtras:
    ex = AutoclawExtras()
    for r in _records(_load(skills_root / LEDGER, ex.errors), "skills"):
        bl = r.get("byteLength")
        ex.ledger[r["skillId"]] = LedgerEntry(
            version=None if r.get("version") is None else str(r.get("version")),
            content_sha256=_sha(r.get("contentSha256")),
            byte_length=bl if isinstance(bl, int) and not isinstance(bl, bool) else None,
            deployed_at=timestamp(r.get("deployedAt")),
        )
    for r in _records(_load(skills_root / TOMBSTONES, ex.errors), "tombstones"):
        ex.removed_at[r["skillId"]] = timestamp(r.get("removedAt"))
    bdir = skills_root / BUNDLES_DIR
    if bdir.is_dir():
        members: dict[str, set[str]] = {}
        for d in sorted(p for p in bdir.iterdir() if p.is_dir()):
            data = _load(d / BUNDLE_FILE, ex.errors)
            if not isinstance(data, dict):
                continue
            bid = data.get("bundleId") if isinstance(data.get("bundleId"), str) else d.name
            for sid in data.get("skills") or []:
                if isinstance(sid, str):
                    members.setdefault(sid, set()).add(bid)
        ex.bundles = {k: sorted(v) for k, v in sorted(members.items())}
    return ex
