"""`reindex`: extract → index_rev → SQL models → lexical index → publish a new generation.

incremental: extract what changed; if the rev equals the published one the run is a no-op.
Every incremental or full run ends with the curation pass (pipeline/curation.py), which recomputes
`ak_trust` beside the generation when the generation, the access counter or the day changed.
full:        forget cursors and the lake, extract everything, build a new generation.
verify:      change nothing; re-check the published generation against the lake and sources.
Every run, no-op included, is appended to `state/runs.jsonl` (→ `ak_index_run`).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from warehouse.core import cancel, db
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.paths import Paths, tool_homes
from warehouse.core.redact import redact
from warehouse.core.settings import Settings
from warehouse.core.source_roots import forgettable, root_states
from warehouse.extract import ensure_lake_schemas, run_extract
from warehouse.extract.base import Progress, utc_now_iso
from warehouse.home import generation, outbox
from warehouse.home.lake import Lake
from warehouse.home.runs import append_run, mark_finished, mark_started, read_runs
from warehouse.indexing import team_source
from warehouse.indexing.source_state import ensure_source_state_schema, ensure_writer_scope_schema, write_source_state
from warehouse.indexing.spawn import run_build_child
from warehouse.indexing.vector_job import semantic_job
from warehouse.pipeline import curation

MODES = ("incremental", "full", "verify")


def reindex(paths: Paths, settings: Settings, mode: str = "incremental", progress: Progress | None = None,
            wait_s: float = 0.0, snapshot: int | None = None) -> dict[str, Any]:
    """`snapshot` (team backend): rebuild from that catalog snapshot (time travel), extracting nothing."""
    if mode not in MODES:
        raise KnowledgeError(Code.INVALID_REQUEST, f"mode: unknown value {mode!r}", field="mode")
    if not settings.enabled:
        raise KnowledgeError(Code.DISABLED, "agent-knowledge is disabled (akw config set enabled=true)")
    if mode == "verify":
        return verify(paths, settings)
    paths.ensure()
    with cancel.watch(), generation.writer_lock(paths, wait_s=wait_s):
        return run_locked(paths, settings, mode, progress, snapshot)


def run_locked(paths: Paths, settings: Settings, mode: str, progress: Progress | None = None,
               snapshot: int | None = None) -> dict[str, Any]:
    """One incremental or full run; the caller holds the writer lock (`akw forget` rebuilds under its own)."""
    generation.discard_stale_builds(paths.generations)  # a killed build's file, even if this run is a no-op
    t0 = time.perf_counter()
    started_at = utc_now_iso()
    # the run number keeps ids unique when one process runs twice within a second
    run_id = f"run-{started_at}-{os.getpid()}-{len(read_runs(paths)) + 1:06d}"
    mark_started(paths, {"run_id": run_id, "mode": mode, "started_at": started_at})
    try:
        return _run(paths, settings, mode, progress, run_id, started_at, t0, snapshot)
    finally:
        mark_finished(paths)  # a killed run leaves the marker: status says it was interrupted


def _run(paths: Paths, settings: Settings, mode: str, progress: Progress | None, run_id: str, started_at: str,
         t0: float, snapshot: int | None) -> dict[str, Any]:
    if mode == "full" and snapshot is None:
        # forget only what can be read again now: a missing root keeps its last good data; a snapshot
        # rebuild keeps this machine's lake and cursors
        _forget_everything(paths, forgettable(root_states(paths, settings)))
    extract = run_extract(paths, settings, progress=progress) if snapshot is None else _no_extract()
    cancel.check()  # a Ctrl-C inside a DuckDB query reached the extractors as one unit's error
    choice = team_source.choose(paths, settings, outbox.digest(paths), snapshot, extract.get("push"))
    rev = choice.rev
    published = generation.current(paths.generations)
    record: dict[str, Any] = {
        "run_id": run_id, "mode": mode, "started_at": started_at,
        "index_rev": rev, "extract": extract, "errors": [e for s in extract["sources"] for e in s["errors"]],
    }
    if published is None and snapshot is None:  # nothing to be incremental over: say so (status, the CLI)
        record["first_build"] = True
    warnings = [{"source": s["source"], **w} for s in extract["sources"] for w in s.get("warnings", [])]
    if warnings:  # coded notes that lost nothing (a newer tool's line types): not errors, not degraded
        record["warnings"] = warnings
    if choice.team:
        record["team"] = choice.team
    if snapshot is None and not extract["readable"]:  # every source absent, off or missing: nothing to build from
        unreadable = [s for s in extract["sources"] if s["root"] != "off"]
        err = KnowledgeError(Code.SOURCE_UNAVAILABLE, "no source could be read ("
                             + "; ".join(f"{s['source']}: {s['root']}" for s in unreadable)
                             + "); check DSH_HOME / AUTOCLAW_ROOT, then run `akw reindex`",
                             sources={s["source"]: s["root"] for s in extract["sources"]})
        record.update(outcome="failed", finished_at=utc_now_iso(), duration_s=round(time.perf_counter() - t0, 3),
                      errors=[*record["errors"], {"code": err.code, "unit": "reindex", "message": err.message}])
        append_run(paths, record)
        raise err
    if mode == "incremental" and published is not None and published.index_rev == rev:
        record.update(outcome="noop", finished_at=utc_now_iso(), duration_s=round(time.perf_counter() - t0, 3))
        append_run(paths, record)
        return {**record, "generation": published.path.name, "trust": curation.run(paths)}
    build_path = generation.new_build_path(paths.generations, rev)
    try:
        stats = _build(paths, settings, build_path, record, progress, choice)
        cancel.check()
        gen = generation.publish(paths.generations, build_path, rev, utc_now_iso())
    except BaseException as e:
        db.remove_files(build_path)
        cancelled = isinstance(e, KeyboardInterrupt)
        code = e.code if isinstance(e, KnowledgeError) else Code.INTERNAL.value
        record.update(outcome="cancelled" if cancelled else "failed", finished_at=utc_now_iso(),
                      duration_s=round(time.perf_counter() - t0, 3),
                      errors=[*record["errors"], {"code": code, "unit": "build",
                                                  "message": redact(f"{type(e).__name__}: {e}") or ""}])
        append_run(paths, record)
        raise
    record.update(outcome="published", finished_at=utc_now_iso(), duration_s=round(time.perf_counter() - t0, 3),
                  build=stats)
    append_run(paths, record)
    # after the publish: the pass reads the new generation's marts; its table lives beside it
    return {**record, "generation": gen.path.name, "trust": curation.run(paths)}


def _forget_everything(paths: Paths, sources: list[str]) -> None:
    """Forget what `--mode full` reads again; a Claude Code / Codex file the tool deleted cannot be read again:
    its rows stay until retention (extract/session_files.reset_keeping_vanished)."""
    from warehouse.extract.session_files import reset_keeping_vanished

    homes = tool_homes(paths)
    for name in sources:
        if name in homes:
            reset_keeping_vanished(paths.lake, paths.state_dir, name, homes[name])
            continue
        shutil.rmtree(paths.lake / "bronze" / name, ignore_errors=True)
        (paths.state_dir / f"{name}.json").unlink(missing_ok=True)
    paths.ensure()


def _no_extract() -> dict[str, Any]:
    return {"finished_at": utc_now_iso(), "duration_s": 0.0, "files_written": 0, "sources": [], "skipped": True}


def _build(paths: Paths, settings: Settings, build_path: Path, record: dict[str, Any],
           progress: Progress | None, choice: team_source.LakeChoice) -> dict[str, Any]:
    """Prepare the lake, then build the generation file in a child process (see indexing.child)."""
    ensure_lake_schemas(Lake(choice.root, redact=settings.redact_secrets))
    ensure_writer_scope_schema(Lake(choice.root))
    if choice.local:
        write_source_state(paths)
    else:
        ensure_source_state_schema(Lake(choice.root))
    runs = [json.dumps(r, sort_keys=True) for r in [*read_runs(paths), {**record, "outcome": "building"}]]
    # an incremental build reuses the published generation's tokenized texts (read-only); a full
    # build trusts nothing from before and tokenizes everything
    published = generation.current(paths.generations) if record["mode"] == "incremental" else None
    job = {"build_path": str(build_path), "lake": str(choice.root), "runs": runs, "index_rev": record["index_rev"],
           "assignments": outbox.assignment_rows(paths),
           "memory_limit": settings.index.memory_limit, "threads": settings.index.threads,
           "previous": str(published.path) if published else None,
           **semantic_job(settings, record)}
    if progress:
        progress("build", 0, 1)
    stats = run_build_child(job, build_path, record)
    for q in stats.get("quarantined", []):  # a unit a model could not build: left out, the rest published
        q["error"] = redact(q["error"]) or ""
        record["errors"].append({"code": Code.SOURCE_CORRUPT.value, "source": q["source"], "unit": q["unit"],
                                 "message": quarantine_message(q)})
    if progress:
        progress("build", 1, 1)
    return stats


def quarantine_message(q: dict[str, Any]) -> str:
    """What `akw status` / `akw sources` say of a unit the build left out (indexing/quarantine.py)."""
    return (f"model {q['model']} could not be built with this unit's lake data ({q['error']}); the unit is left "
            "out of the published generation, the rest is indexed. `akw reindex --mode full` reads it again")


def verify(paths: Paths, settings: Settings) -> dict[str, Any]:
    """Re-check the published generation; report mismatches, change nothing."""
    from warehouse.indexing.verify import check_generation

    return check_generation(paths, settings)
