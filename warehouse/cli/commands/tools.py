"""The tools around the warehouse: fixtures, demo, eval, bench, the MCP server, data quality, the report.

Their heavy modules (the generator, the evaluation and bench renderers, the MCP SDK) load inside the command,
so `import warehouse.cli` stays light.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from warehouse.api import Warehouse
from warehouse.cli.app import JsonOpt, Tick, app, emit, errors, fail, fixtures_app, home_options, log, out, progress, wh
from warehouse.cli.render import print_demo, print_fixtures, print_quality
from warehouse.core.errors import Code
from warehouse.core.paths import Paths
from warehouse.core.settings import Settings


# -- fixtures / demo --------------------------------------------------------------------------
def _fixture_ticks(tick: Tick | None) -> Callable[[int, int], None] | None:
    """The generator reports (done, total); the bar wants increments."""
    if tick is None:
        return None
    last = [0]

    def cb(done: int, total: int) -> None:
        tick("generate", done - last[0], total)
        last[0] = done

    return cb


@fixtures_app.command("generate")
def fixtures_generate(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to write dsh/, autoclaw/, workspaces/, manifest.json")],
    sessions: Annotated[int, typer.Option(min=1)] = 24,
    seed: Annotated[int, typer.Option()] = 7,
    events: Annotated[int | None, typer.Option(help="Total DSH events (default sessions*60).")] = None,
    broken: Annotated[bool, typer.Option(help="Also plant corrupt units.")] = False,
    claude_code: Annotated[int, typer.Option(
        "--claude-code", min=0, help="Also write N Claude Code sessions under claude/ (CLAUDE_CONFIG_DIR).")] = 0,
    codex: Annotated[int, typer.Option(
        "--codex", min=0, help="Also write N Codex CLI rollouts under codex/ (CODEX_HOME).")] = 0,
    as_json: JsonOpt = False,
) -> None:
    """Generate a realistic DSH home, AutoClaw root, skills and workspaces with a ground-truth manifest."""
    with errors(as_json):
        with progress(not as_json) as tick:
            doc = Warehouse.generate_fixtures(out_dir, sessions=sessions, seed=seed, events=events, broken=broken,
                                              progress=_fixture_ticks(tick), claude_code_sessions=claude_code,
                                              codex_sessions=codex)
        emit(as_json, doc, print_fixtures)


@app.command()
def demo(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for the generated sources and the warehouse.")] = Path(
        "demo"),
    sessions: Annotated[int, typer.Option(min=1)] = 24,
    seed: Annotated[int, typer.Option()] = 7,
    as_json: JsonOpt = False,
) -> None:
    """Generate realistic data (unless present), index it, run the UJ-1 … UJ-5 scenarios (UJ-3: a dispatch)."""
    with errors(as_json):
        with progress(not as_json) as tick:
            doc = Warehouse.demo(out_dir, sessions=sessions, seed=seed, progress=tick, log=log(as_json))
        emit(as_json, doc, _print_demo)


def _print_demo(doc: dict[str, Any]) -> None:
    """The demo in words, in the one language its journeys were run in (evaluation/demo.demo_language)."""
    from warehouse.evaluation.demo import demo_language

    env = doc["env"]
    config = Paths.resolve(env["DSH_HOME"], env["AUTOCLAW_ROOT"], env["AKW_HOME"]).config_file
    print_demo(doc, demo_language(Settings.load(config).ui.language))


# -- eval / bench (golden set, benchmarks) ----------------------------------------------------
@app.command("eval")
def eval_cmd(
    golden: Annotated[Path | None, typer.Option(help="Golden set YAML, or a folder of them (default golden/).")] = None,
    generate: Annotated[Path | None, typer.Option(
        "--generate", help="Data folder to generate into or reuse (default: a temp folder per size/seed).")] = None,
    sessions: Annotated[int, typer.Option(min=1)] = 24,
    seed: Annotated[int, typer.Option()] = 7,
    min_recall3: Annotated[float, typer.Option("--min-recall3")] = 0.80,
    min_mrr: Annotated[float, typer.Option("--min-mrr")] = 0.60,
    max_zero: Annotated[float, typer.Option("--max-zero")] = 0.10,
    max_false_hit: Annotated[float | None, typer.Option("--max-false-hit",
                                                        help="Also gate empty-answer false hits.")] = None,
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for eval-<index_rev>.json.")] = Path("reports"),
    semantic: Annotated[str, typer.Option(
        "--semantic", help="off | on | both | auto (both when the \\[semantic] extra is installed).")] = "auto",
    as_json: JsonOpt = False,
) -> None:
    """Run the golden set on generated data; recall@k, MRR, nDCG, zero-result, false hits; gate on thresholds."""
    from warehouse.evaluation.render import print_eval

    with errors(as_json):
        report = Warehouse.eval(golden, generate, sessions=sessions, seed=seed, out_dir=out_dir,
                                min_recall3=min_recall3, min_mrr=min_mrr, max_zero=max_zero,
                                max_false_hit=max_false_hit, log=log(as_json), semantic=semantic)
        emit(as_json, report, lambda d: print_eval(out, d))
    if not report["passed"]:
        raise typer.Exit(code=1)


@app.command()
def bench(
    scale: Annotated[str, typer.Option(help="small (24 sessions) | 100k (100k events) | 1m (1M events, minutes)")] = (
        "small"),
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for bench-<scale>-<index_rev>.json.")] = Path(
        "reports"),
    work: Annotated[Path | None, typer.Option(help="Folder for generated data and homes (default: temp).")] = None,
    team: Annotated[bool, typer.Option("--team", help="Also the team lake: push and build-from-snapshot.")] = False,
    catalog: Annotated[str | None, typer.Option(help="--team: DSN of a scratch PostgreSQL database (default "
                                                     "$AKW_LAKE__CATALOG, else a throwaway local cluster).")] = None,
    only: Annotated[str | None, typer.Option(help="team: only one local cold build and the team phases.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Cold/no-op/one-change build times, search latency per mode, peak RSS, size, SQLite FTS5 baseline."""
    from warehouse.bench.render import print_bench

    with errors(as_json):
        team = team or only == "team"
        dsn = (catalog or os.environ.get("AKW_LAKE__CATALOG")) if team else None
        report = Warehouse.bench(scale, out_dir, work, log=log(as_json), team_catalog=dsn, team=team, only=only)
        emit(as_json, report, lambda d: print_bench(out, d))


# -- mcp --------------------------------------------------------------------------------------
@app.command("mcp")
@home_options
def mcp_cmd(ctx: typer.Context) -> None:
    """Serve the knowledge_* tools over MCP stdio (docs/mcp.md); needs the \\[mcp] extra."""
    try:
        from warehouse.mcp.server import main as serve
    except ImportError:
        fail(False, {"code": Code.INVALID_REQUEST.value,
                     "message": "the MCP server needs the [mcp] extra: pip install 'agent-knowledge-warehouse[mcp]'"})
    serve(wh(ctx).paths)


# -- quality / report -------------------------------------------------------------------------
@app.command()
@home_options
def quality(
    ctx: typer.Context,
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for quality-<index_rev>.json.")] = Path("reports"),
    as_json: JsonOpt = False,
) -> None:
    """Data-quality suite (great-expectations) over the marts; exits 1 when any expectation fails."""
    with errors(as_json):
        doc = wh(ctx).quality(out_dir, log=log(as_json))
        emit(as_json, doc, print_quality)
    if not doc["success"]:
        raise typer.Exit(code=1)


@app.command()
@home_options
def report(
    ctx: typer.Context,
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for report-<index_rev>.html/.md/.json.")] = Path(
        "reports"),
    reports_dir: Annotated[Path | None, typer.Option(
        "--reports", help="Folder of eval/bench/quality files to include (default: --out).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Write a self-contained HTML report (and Markdown): status, coverage, errors, metrics, benchmarks, top lists."""
    with errors(as_json):
        doc = wh(ctx).report(out_dir, reports_dir)
        emit(as_json, doc, lambda d: out.print(
            f"report ({d['state']}, index_rev {d['index_rev'] or '-'}): {d['files']['html']} {d['files']['markdown']}",
            markup=False, highlight=False))
