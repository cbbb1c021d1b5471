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
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from warehouse.core import cancel
from warehouse.core.paths import Paths
from warehouse.core.redact import RULES_VERSION, redact
from warehouse.core.settings import Settings
from warehouse.home.lake import Lake
from warehouse.home.state import SourceStore, UnitState
from warehouse.home.tombstones import Tombstones

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
    units_expired: int = 0  # dropped by retention (`retention_days`) this run
    rows: dict[str, int] = field(default_factory=dict)
    errors: list[dict[str, Any]] = field(default_factory=list)
    degraded: bool = False
    duration_s: float = 0.0
    root: str = "ok"  # source_roots state: ok | absent | unavailable | off
    units_skipped: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)  # {unit, reason}: links out of the root
    # coded notes that lose nothing (line types a newer tool writes, counted and skipped): not errors
    warnings: list[dict[str, Any]] = field(default_factory=list)


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
                "skipped": self.units_skipped,
                "expired": self.units_expired,
            },
            "skipped": self.skipped,
            "rows_written": dict(sorted(self.rows.items())),
            "errors": self.errors,
            **({"warnings": self.warnings} if self.warnings else {}),
            "degraded": self.degraded,
            "root": self.root,
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
    tombstones: Tombstones | None = None  # forgotten ids (akw forget): excluded like settings.exclude
    retention_cutoff_ms: int | None = None  # items whose last activity is older are dropped (retention_days)

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
        """Record a unit failure with a stable code. The cursor is cleared so the next run retries.

        A failure that was really a Ctrl-C (DuckDB reports it as RuntimeError) cancels the run instead."""
        cancel.check()
        message = redact(message) or ""
        report.units_failed += 1
        report.errors.append({"code": code, "unit": unit, "message": message})
        self.store.cursors.pop(unit, None)
        self.store.set_unit(UnitState(report.source, unit, revision, "error", code, message,
                                      schema_version=schema_version, extracted_at=utc_now_iso()))

    def drop_unit(self, report: SourceReport, unit: str, status: str = "excluded", record: bool = True) -> None:
        """Drop a unit (the job removes its lake files). An expired one keeps its cursor's times only, so an
        unchanged old file is not re-read every run; any other exclusion forgets the cursor, and `record`
        False leaves no state naming it at all (a forgotten id)."""
        cur = self.store.cursor(unit)
        if status == "expired":
            report.units_expired += int(self.store.units.get(unit, {}).get("status") == "ok")
            if isinstance(cur, dict):
                self.store.set_cursor(unit, {k: v for k, v in cur.items() if k != "revision"})
            self.store.set_unit(UnitState(report.source, unit, None, "expired"))
            return
        report.units_removed += int(cur is not None)
        self.store.forget(unit)
        if record:
            self.store.set_unit(UnitState(report.source, unit, None, "excluded"))

    # -- exclusions (settings.exclude) ------------------------------------------
    def forgotten(self, kind: str, *values: str | None) -> bool:
        """Tombstoned by `akw forget` (then no unit state may name it either)."""
        return self.tombstones is not None and self.tombstones.has(kind, *values)

    def excluded_workspace(self, *names: str | None) -> bool:
        ex = set(self.settings.exclude.workspaces)
        return any(n in ex for n in names if n) or self.forgotten("workspace", *names)

    def excluded_session(self, session_id: str) -> bool:
        return session_id in set(self.settings.exclude.sessions) or self.forgotten("session", session_id)

    def excluded_actor(self, *names_or_ids: str | None) -> bool:
        ex = set(self.settings.exclude.actors)
        return any(n in ex for n in names_or_ids if n) or self.forgotten("actor", *names_or_ids)

    def excluded_skill(self, *names_or_ids: str | None) -> bool:
        """Skills are excluded by path (`exclude.paths`/`file_patterns`) or forgotten by id/name."""
        return self.forgotten("skill", *names_or_ids)

    def expired(self, last_ms: int | None) -> bool:
        """Older than the retention window (an item without a time is kept: nothing says it is old)."""
        return self.retention_cutoff_ms is not None and last_ms is not None and last_ms < self.retention_cutoff_ms

    def privacy_sig(self) -> str:
        """The tombstones' part of a unit fingerprint (retention is checked apart, from stored times:
        a daily-moving cutoff in the fingerprint would re-read every unit every day)."""
        return self.tombstones.digest() if self.tombstones else ""

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


def inside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """Whether `path`, links resolved, stays inside `root` (links resolved): a link out of its source
    root (a SKILL.md pointing at /etc/passwd, a session file linked from elsewhere) is never read."""
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def skipped(ctx: ExtractContext, report: SourceReport, unit: str, reason: str) -> None:
    """A unit deliberately not read (a link out of its root): counted, with the reason, never indexed."""
    report.units_skipped += 1
    report.skipped.append({"unit": unit, "reason": reason})
    ctx.store.cursors.pop(unit, None)
    ctx.store.set_unit(UnitState(report.source, unit, None, "skipped", error=reason))


class NotRegularFile(OSError):
    """A source path that is a FIFO, a device or a folder where a file was expected (issue 25)."""


def read_regular(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a regular file, never blocking: opened non-blocking and checked with fstat before any
    read, so a FIFO in place of a session log or a workspace file is an error of its unit (or a file
    counted unreadable) instead of a run hung in open()."""
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as fh:
        mode = os.fstat(fh.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"not a regular file ({stat.filemode(mode)[0]})")
        return fh.read()
