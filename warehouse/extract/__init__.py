"""Extract jobs: one module per source, run in a fixed order, each isolated from the others."""

from __future__ import annotations

import importlib
import sys
import time
import traceback
from typing import Any

from warehouse.core import cancel
from warehouse.core.errors import Code
from warehouse.core.paths import Paths
from warehouse.core.redact import redact
from warehouse.core.settings import Settings
from warehouse.core.source_roots import root_states
from warehouse.extract.base import ExtractContext, Progress, SourceReport, utc_now_iso
from warehouse.home.lake import Lake
from warehouse.home.state import SourceStore
from warehouse.home.tombstones import Tombstones

# source name -> (module, settings.sources flag)
EXTRACTORS: dict[str, tuple[str, str]] = {
    "dsh": ("warehouse.extract.dsh.job", "harness"),
    "autoclaw": ("warehouse.extract.autoclaw.job", "autoclaw"),
    "skills": ("warehouse.extract.skills.job", "skills"),
    "code": ("warehouse.extract.code.job", "code"),
    "claude_code": ("warehouse.extract.claude_code.job", "claude_code"),
    "codex": ("warehouse.extract.codex.job", "codex"),
}


def ensure_lake_schemas(lake: Lake) -> None:
    """Every extractor's tables exist in the lake (as zero-row schema files) even if it never ran."""
    for name, (module, _flag) in EXTRACTORS.items():
        for table, schema in importlib.import_module(module).TABLES.items():
            lake.ensure_table(name, table, schema)


def run_extract(paths: Paths, settings: Settings, sources: list[str] | None = None,
                progress: Progress | None = None) -> dict[str, Any]:
    """Run every enabled extractor; a crash in one is recorded with KNOWLEDGE_INTERNAL, the rest go on."""
    paths.ensure()
    lake = Lake(paths.lake, redact=settings.redact_secrets, pii=settings.redact_pii)
    started = time.perf_counter()
    reports: list[SourceReport] = []
    roots = root_states(paths, settings)
    tombstones = Tombstones(paths)
    cutoff = retention_cutoff_ms(settings)
    for name, (module, _flag) in EXTRACTORS.items():
        if sources and name not in sources:
            continue
        root = roots[name]
        if not root.readable:  # off, absent, or a given root that is missing: keep the lake's last good data
            rep = SourceReport(source=name, degraded=root.state == "unavailable", root=root.state)
            if root.state == "unavailable":
                rep.errors.append(root.error())
            reports.append(rep)
            continue
        store = SourceStore(paths.state_dir, name)
        ctx = ExtractContext(paths=paths, settings=settings, lake=lake, store=store, progress=progress,
                             tombstones=tombstones, retention_cutoff_ms=cutoff)
        t0 = time.perf_counter()
        try:
            rep: SourceReport = importlib.import_module(module).extract(ctx)
        except Exception as e:  # isolation between sources: record, do not propagate
            cancel.check()
            rep = SourceReport(source=name, degraded=True)
            rep.errors.append({"code": Code.INTERNAL.value, "source": name, "unit": name,
                               "message": redact(f"{type(e).__name__}: {e}") or ""})
            print(redact(traceback.format_exc()), file=sys.stderr)
        rep.duration_s = time.perf_counter() - t0
        for err in rep.errors:
            err.setdefault("source", name)
        store.save()
        reports.append(rep)
    doc: dict[str, Any] = {
        "finished_at": utc_now_iso(),
        "duration_s": round(time.perf_counter() - started, 3),
        "files_written": lake.files_written,
        "sources": [r.to_dict() for r in reports],
        "readable": [r.source for r in reports if r.root == "ok"],
        "retention": {"days": settings.retention_days, "cutoff_ms": cutoff,
                      "dropped": sum(r.units_expired for r in reports)},
    }
    if settings.lake.backend == "ducklake":  # the redacted units leave the machine only here (ADR 0013)
        from warehouse.team.sync import push_or_degrade

        ensure_lake_schemas(lake)
        doc["push"] = push_or_degrade(paths, settings, doc["finished_at"])
    return doc


def retention_cutoff_ms(settings: Settings) -> int:
    """Epoch ms before which an item is out of the window; a whole day, so one run's cutoff is stable."""
    from datetime import timedelta

    from warehouse.core import clock

    day = (clock.now() - timedelta(days=settings.retention_days)).replace(hour=0, minute=0, second=0, microsecond=0)
    return int(day.timestamp() * 1000)
