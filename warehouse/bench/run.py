"""`akw bench`: build and search timings at a data scale, beside an SQLite FTS5 baseline.

Generated data is a source: the bench copies its DSH home and appends events only to the copy.
Each phase runs in a child process (`warehouse.cli.bench_child`) reaped with `os.wait4`, so the
peak RSS of a build and of the search process are measured separately. Timed phases: cold
extract+build on fresh homes, no-op rerun, one-changed-session rerun (median of N after a
warm-up), warm search latency per mode, the FTS5 baseline, 500 searches through one MCP server process
(bench/mcp_server.py); plus index size and machine facts.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from warehouse.bench.mcp_server import SEARCHES, run_mcp_phase
from warehouse.bench.mutate import pick_session
from warehouse.bench.queries import bench_queries
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.paths import Paths
from warehouse.core.proc import GLIBC_TUNABLES, tuned_env
from warehouse.evaluation.homes import dir_bytes, ensure_generated
from warehouse.home import generation
from warehouse.team.scratch_pg import scratch_cluster

SCHEMA = "akw.bench/v1"
SEED = 7


@dataclass(frozen=True)
class Scale:
    name: str
    sessions: int
    events: int | None  # None: the generator default (sessions * 60)
    cold_runs: int = 1  # fresh homes, cold extract + build
    repeat: int = 3  # timed no-op and one-changed reruns (median reported)
    warmup: int = 1  # untimed reruns before those
    queries_per_mode: int = 40  # searches per mode (first N of the fixed list)
    index_memory: str | None = None  # index.memory_limit of the builds (None: the setting's default)
    mcp_searches: int = SEARCHES  # knowledge_search calls through one MCP server process
    semantic: bool = True  # the semantic-on phases (cold build, one changed session, search)
    # a second data set with Claude Code and Codex homes beside DSH and AutoClaw (issue 26): that many
    # sessions of each tool (0: not measured), a cold build and search latency set beside the DSH-only run
    mixed_tool_sessions: int = 0


SCALES = {
    "small": Scale("small", 24, None, cold_runs=2, repeat=3, warmup=1, queries_per_mode=40),
    "100k": Scale("100k", 200, 100_000, cold_runs=2, repeat=3, warmup=1, queries_per_mode=218,
                  mixed_tool_sessions=100),
    # a million documents need more than the 200 MB default (ADR 0002): the budget is 2 GB
    "1m": Scale("1m", 2000, 1_000_000, cold_runs=1, repeat=3, warmup=1, queries_per_mode=218, index_memory="1GB"),
}


def _maxrss_mb(ru: Any) -> float:
    return round(ru.ru_maxrss / (2**20 if sys.platform == "darwin" else 1024), 1)  # bytes on macOS, KiB on Linux


def spawn(params: dict[str, Any], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run one child phase; return its JSON plus wall time and its own peak RSS (os.wait4 rusage)."""
    cmd = [sys.executable, "-m", "warehouse.cli.bench_child", json.dumps(params, ensure_ascii=False)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=tuned_env({**os.environ, **(env or {})}))
        _, status, ru = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            tail = err.read().decode("utf-8", "replace")[-2000:]
            raise RuntimeError(f"bench phase {params['phase']} failed ({proc.returncode}): {tail}")
        doc = json.loads(out.read().decode("utf-8").strip().splitlines()[-1])
    return {**doc, "process_wall_s": round(wall, 3), "peak_rss_mb": _maxrss_mb(ru)}


def machine() -> dict[str, Any]:
    import duckdb
    import psutil

    return {"cores": os.cpu_count(), "ram_gb": round(psutil.virtual_memory().total / 2**30, 2),
            "python": platform.python_version(), "duckdb": duckdb.__version__, "platform": platform.platform(),
            "machine": platform.machine(), "loadavg_at_start": [round(x, 2) for x in os.getloadavg()]}


def bm25s_status() -> str:
    try:
        import bm25s  # noqa: F401
    except ImportError:
        return "bm25s: not installed"
    return "bm25s: installed (not benchmarked: not a dependency)"


def _fresh_copy(src: Path, dst: Path) -> None:
    """The bench's own copy of the DSH home (sessions get appended to; the generator output never)."""
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, symlinks=True)


def _semantic_phases(base: dict[str, Any], copy: Path, queries: list[str], build_env: dict[str, str] | None,
                     say: Callable[[str], None]) -> dict[str, Any]:
    """The same data with semantic.enabled in the same run: a cold build (embedding throughput), a rerun
    after one changed session (vector reuse) and warm search per mode, each in its own process."""
    from warehouse.core import embed

    if not embed.installed():
        return {"skipped": "the [semantic] extra is not installed"}
    env = {**(build_env or {}), "AKW_SEMANTIC__ENABLED": "true"}
    home = copy / "akw-semantic"
    shutil.rmtree(home, ignore_errors=True)
    p = {**base, "home": str(home)}
    say("semantic on: cold extract+build (embedding) …")
    cold = spawn({**p, "phase": "reindex", "mode": "full", "repeat": 1}, env)
    say("semantic on: one-changed-session rerun …")
    changed = spawn({**p, "phase": "reindex", "warmup": 0, "repeat": 1, "mutate": str(pick_session(copy / "dsh"))},
                    env)
    say(f"semantic on: search latency: {len(queries)} queries x 5 modes …")
    search = spawn({**p, "phase": "search", "queries": queries}, env)
    gen = generation.current(Paths.resolve(home=home).generations)
    run = cold["runs"][0]
    return {"build": {"seconds": run["seconds"], "build_s": run["build_s"], "peak_rss_mb": cold["peak_rss_mb"],
                      "vectors": run["semantic"]},
            "one_changed_session": {"seconds": changed["runs"][0]["seconds"], "peak_rss_mb": changed["peak_rss_mb"],
                                    "vectors": changed["runs"][0]["semantic"]},
            "search": search, "generation_bytes": gen.path.stat().st_size if gen else 0,
            "index_rev": gen.index_rev if gen else None}


def _mixed_phases(scale: Scale, work: Path, queries: list[str], build_env: dict[str, str] | None,
                  say: Callable[[str], None]) -> dict[str, Any]:
    """DSH + AutoClaw + Claude Code + Codex: the same DSH data plus `mixed_tool_sessions` sessions of each
    tool, one cold extract+build and the search latency per mode, beside the DSH-only figures."""
    n = scale.mixed_tool_sessions
    src = work / f"{scale.name}-mixed-src"
    say(f"mixed sources: generating {scale.sessions} DSH + {n} Claude Code + {n} Codex sessions into {src} …")
    manifest = ensure_generated(src, scale.sessions, SEED, scale.events, claude_code=n, codex=n)
    home = src / "akw-mixed"
    shutil.rmtree(home, ignore_errors=True)
    p = {"dsh": str(src / "dsh"), "autoclaw": str(src / "autoclaw"), "home": str(home)}
    say("mixed sources: cold extract+build …")
    cold = spawn({**p, "phase": "reindex", "mode": "full", "repeat": 1}, build_env)
    say(f"mixed sources: search latency: {len(queries)} queries x 5 modes …")
    search = spawn({**p, "phase": "search", "queries": queries})
    gen = generation.current(Paths.resolve(home=home).generations)
    c = manifest.get("counts", {})
    run = cold["runs"][0]
    return {"data": {k: c.get(k) for k in ("dsh_sessions", "dsh_events_unique", "claude_code_files",
                                           "claude_code_tool_calls", "codex_files", "codex_tool_calls")},
            "build": {"seconds": run["seconds"], "build_s": run["build_s"], "docs": run["docs"],
                      "peak_rss_mb": cold["peak_rss_mb"]},
            "search": search, "generation_bytes": gen.path.stat().st_size if gen else 0,
            "index_rev": gen.index_rev if gen else None}


def _team_phases(base: dict[str, Any], copy: Path, catalog: str, local_cold_s: float,
                 say: Callable[[str], None], env: dict[str, str] | None = None) -> dict[str, Any]:
    """`--team`: push the same home to a DuckLake catalog, then build from its snapshot on a source-less home.

    `env`: of the child processes (PGPASSFILE of a scratch cluster)."""
    data_path = copy / "team-data"
    shutil.rmtree(data_path, ignore_errors=True)
    empty = copy / "team-empty"
    for d in ("dsh", "autoclaw"):
        (empty / d).mkdir(parents=True, exist_ok=True)
    say("team: extract + push to the DuckLake catalog …")
    writer = copy / "akw-team-writer"
    shutil.rmtree(writer, ignore_errors=True)
    push = spawn({**base, "phase": "team_push", "home": str(writer), "catalog": catalog,
                  "data_path": str(data_path), "writer_id": "bench-writer"}, env)
    say("team: build from the catalog snapshot on a machine without sources …")
    reader = copy / "akw-team-reader"
    shutil.rmtree(reader, ignore_errors=True)
    build = spawn({"dsh": str(empty / "dsh"), "autoclaw": str(empty / "autoclaw"), "phase": "team_build",
                   "home": str(reader), "catalog": catalog, "data_path": str(data_path), "writer_id": "bench-reader"},
                  env)
    pushed = push["push"]
    secs = max(pushed.get("duration_s") or 0.0, 1e-6)
    return {
        "push": {**pushed, "units_per_s": round(pushed.get("units_pushed", 0) / secs, 1),
                 "mb_per_s": round(pushed.get("bytes", 0) / 2**20 / secs, 2), "extract_s": push["extract_s"],
                 "peak_rss_mb": push["peak_rss_mb"]},
        "build_from_snapshot": {**build, "peak_rss_mb": build["peak_rss_mb"]},
        "local_cold_build_s": local_cold_s,
        "data_path_bytes": dir_bytes(data_path),
    }


def run_bench(scale: Scale, work: Path, out_dir: Path | None = Path("reports"),
              log: Callable[[str], None] | None = None, team_catalog: str | None = None, team: bool = False,
              only: str | None = None) -> dict[str, Any]:
    """`team`: add the team lake beside the local numbers, on `team_catalog` (a libpq DSN of a scratch
    database) or, without one, on a throwaway PostgreSQL cluster started and stopped here.
    `only="team"`: of the local phases only the cold build (what the snapshot build is set beside)."""
    if only not in (None, "team"):
        raise KnowledgeError(Code.INVALID_REQUEST, "only: team (or nothing: every phase)", field="only")
    team = team or only == "team" or team_catalog is not None
    if team and team_catalog is None:
        say = log or (lambda _m: None)
        say("team: starting a throwaway PostgreSQL cluster for the catalog …")
        with scratch_cluster() as cl:
            return _run(scale, work, out_dir, say, cl.dsn(cl.createdb()), only, {"PGPASSFILE": str(cl.passfile)})
    return _run(scale, work, out_dir, log or (lambda _m: None), team_catalog if team else None, only, None)


def _run(scale: Scale, work: Path, out_dir: Path | None, say: Callable[[str], None], team_catalog: str | None,
         only: str | None, team_env: dict[str, str] | None) -> dict[str, Any]:
    t_all = time.perf_counter()
    facts = machine()
    work = Path(work).absolute()
    src = work / f"{scale.name}-src"
    say(f"generating {scale.sessions} sessions ({scale.events or 'default'} events) into {src} …")
    t0 = time.perf_counter()
    manifest = ensure_generated(src, scale.sessions, SEED, scale.events)
    gen_s = time.perf_counter() - t0
    copy = work / f"{scale.name}-copy"
    _fresh_copy(src / "dsh", copy / "dsh")
    base = {"dsh": str(copy / "dsh"), "autoclaw": str(src / "autoclaw")}

    build_env = {"AKW_INDEX__MEMORY_LIMIT": scale.index_memory} if scale.index_memory else None
    if team_catalog:  # the snapshot build is set beside the local cold build: under the same memory limit
        team_env = {**(build_env or {}), **(team_env or {})}
    cold = []
    cold_runs = 1 if only == "team" else scale.cold_runs  # --only team: one local cold build to set beside
    for i in range(cold_runs):
        home = copy / f"akw-cold-{i}"
        shutil.rmtree(home, ignore_errors=True)
        say(f"cold extract+build {i + 1}/{cold_runs} …")
        cold.append(spawn({**base, "phase": "reindex", "home": str(home), "mode": "full", "repeat": 1}, build_env))
    home = copy / f"akw-cold-{cold_runs - 1}"
    if only == "team":
        return _finish(scale, _report(scale, home, facts, src, gen_s, manifest, cold, only), copy, base, say,
                       team_catalog, team_env, t_all, out_dir)
    p = {**base, "home": str(home)}
    say("no-op reruns …")
    noop = spawn({**p, "phase": "reindex", "warmup": scale.warmup, "repeat": scale.repeat}, build_env)
    target = pick_session(copy / "dsh")
    say(f"one-changed-session reruns ({target.parent.name}) …")
    changed = spawn({**p, "phase": "reindex", "warmup": scale.warmup, "repeat": scale.repeat,
                     "mutate": str(target)}, build_env)
    queries = bench_queries()[: scale.queries_per_mode]
    say(f"search latency: {len(queries)} queries x 5 modes …")
    search = spawn({**p, "phase": "search", "queries": queries})
    say("search latency: auto filtered to one workspace …")
    search["filtered"] = spawn({**p, "phase": "search_filtered", "queries": queries})
    say("search latency: access control off vs on (auto) …")
    search["access"] = spawn({**p, "phase": "search_access", "queries": queries})
    say("baseline: SQLite FTS5 bm25() on the same documents …")
    baseline = spawn({**p, "phase": "baseline", "queries": queries, "sqlite": str(copy / "fts5-baseline.sqlite")})
    semantic = _semantic_phases(base, copy, queries, build_env, say) if scale.semantic else \
        {"skipped": f"not measured at scale {scale.name}"}
    mixed = _mixed_phases(scale, work, queries, build_env, say) if scale.mixed_tool_sessions else \
        {"skipped": f"not measured at scale {scale.name}"}
    say(f"MCP server: {scale.mcp_searches} searches through one `python -m warehouse.mcp` process …")
    mcp = run_mcp_phase(base["dsh"], base["autoclaw"], str(home), bench_queries(), scale.mcp_searches)
    report = _report(scale, home, facts, src, gen_s, manifest, cold, only)
    gen = generation.current(Paths.resolve(home=home).generations)
    report["build"].update({
        "noop": {"median_s": noop["median_s"], "runs": noop["runs"], "peak_rss_mb": noop["peak_rss_mb"]},
        "one_changed_session": {"median_s": changed["median_s"], "runs": changed["runs"],
                                "peak_rss_mb": changed["peak_rss_mb"], "session_file": target.parent.name}})
    report.update({
        "search": {**search, "peak_rss_mb": search["peak_rss_mb"]},
        "baseline": {"sqlite_fts5": baseline, "bm25s": bm25s_status(),
                     "search_auto_p50_over_fts5_p50": round(search["modes"]["auto"]["p50_ms"]
                                                            / max(baseline["fts5_bm25"]["p50_ms"], 1e-6), 1)},
        "semantic": semantic,
        "mixed_sources": mixed,
        "mcp": mcp,
        "size": {"generation_bytes": gen.path.stat().st_size if gen else 0,
                 "lake_bytes": dir_bytes(Paths.resolve(home=home).lake), "home_bytes": dir_bytes(home),
                 "source_dsh_bytes": dir_bytes(src / "dsh")},
    })
    return _finish(scale, report, copy, base, say, team_catalog, team_env, t_all, out_dir)


def _report(scale: Scale, home: Path, facts: dict[str, Any], src: Path, gen_s: float, manifest: dict[str, Any],
            cold: list[dict[str, Any]], only: str | None) -> dict[str, Any]:
    """The report's head: scale, machine, data and the cold builds (every run has them)."""
    gen = generation.current(Paths.resolve(home=home).generations)
    index_rev = gen.index_rev if gen else "none"
    return {
        "schema": SCHEMA, "scale": asdict(scale), "index_rev": index_rev, "machine": facts, "only": only,
        "process_env": {"GLIBC_TUNABLES": tuned_env(dict(os.environ)).get("GLIBC_TUNABLES", GLIBC_TUNABLES)},
        "data": {"dir": str(src), "seed": SEED, "generate_s": round(gen_s, 2),
                 "counts": {k: manifest["counts"].get(k) for k in ("dsh_sessions", "dsh_events_unique",
                                                                    "autoclaw_entries", "code_files_indexable",
                                                                    "tasks_total")}},
        "build": {
            "cold": {"runs": [{"seconds": c["runs"][0]["seconds"], "process_wall_s": c["process_wall_s"],
                               "peak_rss_mb": c["peak_rss_mb"], "build_s": c["runs"][0]["build_s"],
                               "models_s": c["runs"][0]["models_s"], "lexical_s": c["runs"][0]["lexical_s"],
                               "docs": c["runs"][0]["docs"]} for c in cold],
                     "median_s": round(statistics.median(c["runs"][0]["seconds"] for c in cold), 3),
                     "peak_rss_mb": max(c["peak_rss_mb"] for c in cold)},
        },
    }


def _finish(scale: Scale, report: dict[str, Any], copy: Path, base: dict[str, Any], say: Callable[[str], None],
            team_catalog: str | None, team_env: dict[str, str] | None, t_all: float,
            out_dir: Path | None) -> dict[str, Any]:
    """The team phases (when asked), the end facts, and the report file (`-team` when only the team part ran)."""
    if team_catalog:
        report["team"] = _team_phases(base, copy, team_catalog, report["build"]["cold"]["median_s"], say, team_env)
    index_rev = report["index_rev"]
    report["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    report["duration_s"] = round(time.perf_counter() - t_all, 1)
    report["finished_at"] = datetime.now(UTC).isoformat(timespec="seconds")  # the apps and report date the run
    if out_dir is not None:
        suffix = f"-{report['only']}" if report.get("only") else ""
        out = Path(out_dir) / f"bench-{scale.name}-{index_rev}{suffix}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        report["report_file"] = str(out)
    return report
