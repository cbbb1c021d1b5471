"""What every extractor gets (ExtractContext) and returns (SourceReport).

An extractor is a module with `SOURCE: str` and `extract(ctx) -> SourceReport`. It is the
only code that reads its source. Rules it follows:
- read-only: never write, lock for writing, or "repair" a source file;
- per-unit isolation: one bad unit records an error in `ctx.store` and the rest go on;
- incremental: compare the unit's revision with `ctx.store.cursor(unit)`, skip if equal;
- write through `ctx.lake` only (it redacts); drop units that vanished or are excluded.
"""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from warehouse.lake import Lake
from warehouse.paths import Paths
from warehouse.redact import RULES_VERSION, redact
from warehouse.settings import Settings
from warehouse.state import SourceStore, UnitState

Progress = Callable[[str, int, int | None], None]  # (description, advance, total)


def utc_now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def redaction_sig(settings: Settings) -> list[Any]:
    """What decides the redacted text of a unit: part of every extractor's revision, so a rule or
    switch change re-reads every unit instead of keeping text redacted under the old rules."""
    return [settings.redact_secrets, settings.redact_pii, RULES_VERSION]


@dataclass
class SourceReport:
    source: str
    units_seen: int = 0
    units_changed: int = 0
    units_unchanged: int = 0
    units_failed: int = 0
    units_removed: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    errors: list[dict[str, str]] = field(default_factory=list)
    degraded: bool = False
    duration_s: float = 0.0

    def add_rows(self, table: str, n: int) -> None:
        self.rows[table] = self.rows.get(table, 0) + n

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "units": {
                "seen": self.units_seen,
                "changed": self.units_changed,
                "unchanged": self.units_unchanged,
                "failed": self.units_failed,
                "removed": self.units_removed,
            },
            "rows_written": dict(sorted(self.rows.items())),
            "errors": self.errors,
            "degraded": self.degraded,
            "duration_s": round(self.duration_s, 3),
        }


@dataclass
class ExtractContext:
    paths: Paths
    settings: Settings
    lake: Lake
    store: SourceStore
    progress: Progress | None = None
    started: float = field(default_factory=time.perf_counter)

    # -- bookkeeping ---------------------------------------------------------
    def tick(self, description: str, advance: int = 1, total: int | None = None) -> None:
        if self.progress:
            self.progress(description, advance, total)

    def unit_ok(self, report: SourceReport, unit: str, revision: str, counts: dict[str, int],
                schema_version: str | None = None, cursor: Any = None) -> None:
        """Record a unit as extracted; its cursor is `cursor` when the source needs more than the revision."""
        self.store.set_cursor(unit, revision if cursor is None else cursor)
        self.store.set_unit(UnitState(report.source, unit, revision, "ok", counts=counts,
                                      schema_version=schema_version, extracted_at=utc_now_iso()))

    def unit_failed(self, report: SourceReport, unit: str, code: str, message: str,
                    revision: str | None = None, schema_version: str | None = None) -> None:
        """Record a unit failure with a stable code. The cursor is cleared so the next run retries."""
        message = redact(message) or ""
        report.units_failed += 1
        report.errors.append({"code": code, "unit": unit, "message": message})
        self.store.cursors.pop(unit, None)
        self.store.set_unit(UnitState(report.source, unit, revision, "error", code, message,
                                      schema_version=schema_version, extracted_at=utc_now_iso()))

    # -- exclusions (settings.exclude) ------------------------------------------
    def excluded_workspace(self, *names: str | None) -> bool:
        ex = set(self.settings.exclude.workspaces)
        return any(n in ex for n in names if n)

    def excluded_session(self, session_id: str) -> bool:
        return session_id in set(self.settings.exclude.sessions)

    def excluded_actor(self, actor_name_or_id: str | None) -> bool:
        return bool(actor_name_or_id) and actor_name_or_id in set(self.settings.exclude.actors)

    def excluded_path(self, path: str) -> bool:
        return path_excluded(self.settings, path)


def path_excluded(settings: Settings, path: str) -> bool:
    """Path prefixes (`exclude.paths`) and glob patterns on the file name or path (`exclude.file_patterns`).

    One rule for the extractors and for the on-demand readers (`dsh/read.py`), so a card never shows
    a file the index leaves out."""
    p = path.replace("\\", "/")
    for prefix in settings.exclude.paths:
        pre = prefix.replace("\\", "/").rstrip("/")
        if p == pre or p.startswith(pre + "/"):
            return True
    name = p.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(name, pat) or fnmatch.fnmatch(p, pat) for pat in settings.exclude.file_patterns)
