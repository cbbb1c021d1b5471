"""Per-source cursors and unit states, kept as small JSON files under `$AKW_HOME/state/`.

A cursor maps a source unit to the revision last extracted (file identity+size+hash,
table high-water marks, skill content hash); an unchanged unit is skipped. Unit state
records status and a stable error code per unit; `akw sources` and `ak_source_state`
read it. Files are rewritten only when their content changes, so a no-op run writes nothing.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from warehouse.core.paths import private_dir
from warehouse.core.redact import redact


@dataclass
class UnitState:
    source: str
    unit: str
    revision: str | None
    status: str  # ok | error | excluded | expired
    error_code: str | None = None
    error: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    schema_version: str | None = None
    extracted_at: str | None = None


class SourceStore:
    """Cursors + unit states of one source, loaded once, saved once per run if changed."""

    def __init__(self, state_dir: Path, source: str) -> None:
        self.path = state_dir / f"{source}.json"
        self.source = source
        data: dict[str, Any] = {}
        if self.path.exists():
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}  # a torn/corrupt state file only costs a re-extract
        self.cursors: dict[str, Any] = data.get("cursors", {})
        self.units: dict[str, dict[str, Any]] = data.get("units", {})
        self._original = json.dumps(data, sort_keys=True)

    def cursor(self, unit: str) -> Any:
        return self.cursors.get(unit)

    def set_cursor(self, unit: str, value: Any) -> None:
        self.cursors[unit] = value

    def set_unit(self, st: UnitState) -> None:
        prev = self.units.get(st.unit)
        d = asdict(st)
        d["error"] = redact(d["error"])
        if prev is not None and {k: v for k, v in prev.items() if k != "extracted_at"} == {
            k: v for k, v in d.items() if k != "extracted_at"
        }:
            return  # unchanged: keep the old timestamp so the file stays byte-identical
        self.units[st.unit] = d

    def forget(self, unit: str) -> None:
        self.cursors.pop(unit, None)
        self.units.pop(unit, None)

    def known_units(self) -> set[str]:
        return set(self.cursors) | set(self.units)

    def save(self) -> bool:
        data = {"source": self.source, "cursors": self.cursors, "units": self.units}
        text = json.dumps(data, sort_keys=True)
        if text == self._original:
            return False
        private_dir(self.path.parent)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, sort_keys=True, ensure_ascii=False, indent=1), encoding="utf-8")
        os.chmod(tmp, 0o600)
        tmp.replace(self.path)
        self._original = text
        return True


def load_all_units(state_dir: Path) -> list[dict[str, Any]]:
    """Every unit state of every source, sorted (for `akw sources` and `ak_source_state`)."""
    out: list[dict[str, Any]] = []
    if state_dir.exists():
        for f in sorted(state_dir.glob("*.json")):
            try:
                data = json.loads(f.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            out.extend(data.get("units", {}).values())
    return sorted(out, key=lambda u: (u.get("source", ""), u.get("unit", "")))
