"""`reindex`: extract → index_rev → SQL models → lexical index → publish a new generation.

incremental: extract what changed; if the rev equals the published one the run is a no-op.
full:        forget cursors and the lake, extract everything, build a new generation.
verify:      change nothing; re-check the published generation against the lake and sources.
Every run, no-op included, is appended to `state/runs.jsonl` (→ `ak_index_run`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

from warehouse import generation
from warehouse.build import index_rev
from warehouse.errors import Code, KnowledgeError
from warehouse.extract import run_extract
from warehouse.extract.base import Progress, utc_now_iso
from warehouse.lake import Lake
from warehouse.paths import Paths
from warehouse.redact import redact
from warehouse.proc import tuned_env
from warehouse.settings import Settings
from warehouse.state import load_all_units

MODES = ("incremental", "full", "verify")


def runs_log(paths: Paths) -> Path:
    return paths.state_dir / "runs.jsonl"


def _append_run(paths: Paths, record: dict[str, Any]) -> None:
    paths.state_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(runs_log(paths), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n")


def read_runs(paths: Paths) -> list[dict[str, Any]]:
    try:
        lines = runs_log(paths).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except ValueError:
            continue  # a torn last line after a crash
    return out


def reindex(paths: Paths, settings: Settings, mode: str = "incremental", progress: Progress | None = None,
            wait_s: float = 0.0) -> dict[str, Any]:
    if mode not in MODES:
        raise KnowledgeError(Code.INVALID_REQUEST, f"mode: unknown value {mode!r}", field="mode")
    if not settings.enabled:
        raise KnowledgeError(Code.DISABLED, "agent-knowledge is disabled (akw config set enabled=true)")
    if mode == "verify":
        return verify(paths, settings)
    paths.ensure()
    with generation.writer_lock(paths.home, wait_s=wait_s):
        generation.discard_stale_builds(paths.generations)  # a killed build's file, even if this run is a no-op
        t0 = time.perf_counter()
        started_at = utc_now_iso()
        if mode == "full":
            _forget_everything(paths)
        extract = run_extract(paths, settings, progress=progress)
        rev = index_rev.compute(paths.state_dir, settings)
        published = generation.current(paths.generations)
        record: dict[str, Any] = {
            # the run number keeps ids unique when one process runs twice within a second
            "run_id": f"run-{started_at}-{os.getpid()}-{len(read_runs(paths)) + 1:06d}", "mode": mode,
            "started_at": started_at,
            "index_rev": rev, "extract": extract, "errors": [e for s in extract["sources"] for e in s["errors"]],
        }
        if mode == "incremental" and published is not None and published.index_rev == rev:
            record.update(outcome="noop", finished_at=utc_now_iso(), duration_s=round(time.perf_counter() - t0, 3))
            _append_run(paths, record)
            return {**record, "generation": published.path.name}
        build_path = generation.new_build_path(paths.generations, rev)
        try:
            stats = _build(paths, settings, build_path, record, progress)
            gen = generation.publish(paths.generations, build_path, rev, utc_now_iso())
        except BaseException as e:
            build_path.unlink(missing_ok=True)
            Path(str(build_path) + ".wal").unlink(missing_ok=True)
            cancelled = isinstance(e, KeyboardInterrupt)
            code = e.code if isinstance(e, KnowledgeError) else Code.INTERNAL.value
            record.update(outcome="cancelled" if cancelled else "failed", finished_at=utc_now_iso(),
                          duration_s=round(time.perf_counter() - t0, 3),
                          errors=[*record["errors"], {"code": code, "unit": "build",
                                                      "message": redact(f"{type(e).__name__}: {e}") or ""}])
            _append_run(paths, record)
            raise
        record.update(outcome="published", finished_at=utc_now_iso(), duration_s=round(time.perf_counter() - t0, 3),
                      build=stats)
        _append_run(paths, record)
        return {**record, "generation": gen.path.name}


def _forget_everything(paths: Paths) -> None:
    shutil.rmtree(paths.lake, ignore_errors=True)
    for f in paths.state_dir.glob("*.json"):
        f.unlink()
    paths.ensure()


def _write_source_state(paths: Paths) -> None:
    units = load_all_units(paths.state_dir)
    rows = [{
        "source": u.get("source"), "unit": u.get("unit"), "revision": u.get("revision"),
        "status": u.get("status"), "error_code": u.get("error_code"), "error": u.get("error"),
        "counts_json": json.dumps(u.get("counts") or {}, sort_keys=True),
        "schema_version": u.get("schema_version"), "extracted_at": u.get("extracted_at"),
    } for u in units]
    schema = {k: pl.String for k in ("source", "unit", "revision", "status", "error_code", "error", "counts_json",
                                     "schema_version", "extracted_at")}
    lake = Lake(paths.lake)
    lake.ensure_table("meta", "source_state", schema)
    lake.write_unit("meta", "source_state", "all", pl.DataFrame(rows, schema=schema))


def _build(paths: Paths, settings: Settings, build_path: Path, record: dict[str, Any],
           progress: Progress | None) -> dict[str, Any]:
    """Prepare the lake, then build the generation file in a child process (see build_child)."""
    from warehouse.extract import ensure_lake_schemas

    ensure_lake_schemas(Lake(paths.lake, redact=settings.redact_secrets))
    _write_source_state(paths)
    runs = [json.dumps(r, sort_keys=True) for r in [*read_runs(paths), {**record, "outcome": "building"}]]
    # an incremental build reuses the published generation's tokenized texts (read-only); a full
    # build trusts nothing from before and tokenizes everything
    published = generation.current(paths.generations) if record["mode"] == "incremental" else None
    job = {"build_path": str(build_path), "lake": str(paths.lake), "runs": runs, "index_rev": record["index_rev"],
           "memory_limit": settings.index.memory_limit, "threads": settings.index.threads,
           "previous": str(published.path) if published else None}
    job_file = build_path.with_suffix(".job.json")
    job_file.write_text(json.dumps(job), encoding="utf-8")
    os.chmod(job_file, 0o600)
    if progress:
        progress("build", 0, 1)
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD, str(job_file)], capture_output=True, text=True,
                              check=False, env=tuned_env(dict(os.environ)))
        bigger = _bigger_memory_limit(job["memory_limit"]) if proc.returncode != 0 and _out_of_memory(proc.stderr) \
            else None
        if bigger:
            # the data outgrew index.memory_limit: build once more with more memory, and say so
            record.setdefault("warnings", []).append({
                "code": Code.LIMIT.value, "unit": "build",
                "message": f"index.memory_limit {job['memory_limit']} was too small for this data; built with "
                           f"{bigger} (raise the setting: `akw config set index.memory_limit={bigger}`)"})
            _remove_build_files(build_path)
            job_file.write_text(json.dumps({**job, "memory_limit": bigger}), encoding="utf-8")
            proc = subprocess.run([sys.executable, "-c", _CHILD, str(job_file)], capture_output=True, text=True,
                                  check=False, env=tuned_env(dict(os.environ)))
    finally:
        job_file.unlink(missing_ok=True)
    if proc.returncode != 0:
        raise KnowledgeError(Code.INTERNAL, f"index build failed: {_child_error(proc.stderr, proc.returncode)}")
    if progress:
        progress("build", 1, 1)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _out_of_memory(stderr: str) -> bool:
    return "OutOfMemoryException" in stderr or "Out of Memory Error" in stderr


_UNITS = {"KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "KIB": 2**10, "MIB": 2**20, "GIB": 2**30,
          "TIB": 2**40, "B": 1}


def _bigger_memory_limit(limit: str, factor: int = 4) -> str | None:
    """`limit` × factor, at most a quarter of this machine's RAM and 2 GB (the 1M-document budget);
    None when the limit cannot grow (or is not a size DuckDB's way of writing we understand)."""
    import psutil

    m = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]*)\s*", limit or "")
    if not m or m.group(2).upper() not in _UNITS:
        return None
    now = float(m.group(1)) * _UNITS[m.group(2).upper() or "B"]
    cap = min(2 * 10**9, psutil.virtual_memory().total // 4)
    new = min(now * factor, cap)
    return f"{int(new // 10**6)}MB" if new > now * 1.05 else None


def _remove_build_files(build_path: Path) -> None:
    build_path.unlink(missing_ok=True)
    Path(f"{build_path}.wal").unlink(missing_ok=True)
    shutil.rmtree(f"{build_path}.tmp", ignore_errors=True)


def _child_error(stderr: str, returncode: int) -> str:
    """The child's exception line (not the hint lines DuckDB appends after it), redacted, with
    what to do when it ran out of memory."""
    lines = [ln.strip() for ln in stderr.strip().splitlines() if ln.strip()]
    errors = [ln for ln in lines if re.match(r"^[\w.]+(Error|Exception)\b.*:", ln)]
    line = redact((errors or lines or [f"exit {returncode}"])[-1])[:500]
    steps = [ln.removeprefix("akw build step: ") for ln in lines if ln.startswith("akw build step: ")]
    if steps:
        line = f"{steps[-1]}: {line}"
    if "OutOfMemory" in line or "Out of Memory" in line:
        line += (" — raise the build's memory (`akw config set index.memory_limit=1GB`; a million documents"
                 " build in about 1-2 GB)")
    return line


# The child reads its job from a file (argv stays short) and dies with its parent.
_CHILD = ("import sys, pathlib; from warehouse.build import child as b; b.die_with_parent(); "
          "sys.exit(b.main(['', pathlib.Path(sys.argv[1]).read_text()]))")


def verify(paths: Paths, settings: Settings) -> dict[str, Any]:
    """Re-check the published generation; report mismatches, change nothing."""
    from warehouse.build.verify import check_generation

    return check_generation(paths, settings)
