"""`akw`: the ops surface. Every command mirrors a `warehouse.api.Warehouse` method.

With `--json` a command prints exactly one JSON document on stdout and diagnostics on
stderr; failures exit non-zero with `{"errors":[{"code":"KNOWLEDGE_…","message":…}]}`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from warehouse.api import Warehouse
from warehouse.errors import Code, KnowledgeError
from warehouse.paths import Paths
from warehouse.redact import redact
from warehouse.settings import Settings

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Agent Knowledge Warehouse")
config_app = typer.Typer(no_args_is_help=True, help="Show or change settings (agent-knowledge section).")
fixtures_app = typer.Typer(no_args_is_help=True, help="Generate realistic source data.")
app.add_typer(config_app, name="config")
app.add_typer(fixtures_app, name="fixtures")

out = Console()
err = Console(stderr=True)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]
DshOpt = Annotated[Path | None, typer.Option("--dsh-home", help="DSH home (default $DSH_HOME or ~/.dsh).")]
AcOpt = Annotated[Path | None, typer.Option("--autoclaw-root", help="AutoClaw root holding accounts/.")]
HomeOpt = Annotated[Path | None, typer.Option("--home", help="Warehouse folder (default $AKW_HOME).")]


def _emit(as_json: bool, doc: dict[str, Any], human: Callable[[dict[str, Any]], None]) -> None:
    if as_json:
        sys.stdout.write(json.dumps(doc, ensure_ascii=False, sort_keys=True, default=str) + "\n")
    else:
        human(doc)


@contextmanager
def _errors(as_json: bool) -> Iterator[None]:
    """Map every failure to a stable code and a non-zero exit; never print indexed text or secrets."""
    try:
        yield
    except KnowledgeError as e:
        _fail(as_json, e.to_dict())
    except typer.Exit:
        raise
    except Exception as e:
        _fail(as_json, {"code": Code.INTERNAL.value, "message": redact(f"{type(e).__name__}: {e}")})


def _fail(as_json: bool, error: dict[str, Any]) -> None:
    if as_json:
        sys.stdout.write(json.dumps({"errors": [error]}, ensure_ascii=False, sort_keys=True) + "\n")
    else:
        err.print(f"[red]{error['code']}[/red]: {error['message']}")
    raise typer.Exit(code=2)


def _open(dsh: Path | None, ac: Path | None, home: Path | None) -> Warehouse:
    return Warehouse.open(dsh, ac, home)


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[str, int, int | None], None] | None]:
    if not enabled:
        yield None
        return
    tasks: dict[str, Any] = {}
    with Progress(TextColumn("{task.description:>10}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=False) as bar:
        def tick(desc: str, advance: int, total: int | None) -> None:
            if desc not in tasks:
                tasks[desc] = bar.add_task(desc, total=total)
            elif total is not None:
                bar.update(tasks[desc], total=total)
            bar.advance(tasks[desc], advance)

        yield tick


# -- extract / reindex ------------------------------------------------------------
def _print_extract(doc: dict[str, Any]) -> None:
    t = Table(title=f"extract ({doc['duration_s']} s, {doc['files_written']} files written)")
    for c in ("source", "seen", "changed", "unchanged", "failed", "removed", "rows written", "errors"):
        t.add_column(c, justify="right" if c not in ("source", "errors") else "left")
    for s in doc["sources"]:
        u = s["units"]
        rows = ", ".join(f"{k}={v}" for k, v in s["rows_written"].items()) or "-"
        errs = ", ".join(sorted({e["code"] for e in s["errors"]})) or "-"
        t.add_row(s["source"], *(str(u[k]) for k in ("seen", "changed", "unchanged", "failed", "removed")), rows, errs)
    out.print(t)


def _print_reindex(doc: dict[str, Any]) -> None:
    if "extract" in doc:
        _print_extract(doc["extract"])
    if doc.get("mode") == "verify":
        out.print("[green]verify: ok[/green]" if doc["ok"] else "[red]verify: mismatches[/red]")
        for m in doc["mismatches"]:
            out.print(f"  {m}")
        return
    build = doc.get("build") or {}
    out.print(f"{doc['outcome']}: index_rev {doc['index_rev']} ({doc['generation']}) in {doc['duration_s']} s"
              + (f"; {build.get('counts')}" if build else ""))


@app.command()
def reindex(
    mode: Annotated[str, typer.Option(help="incremental | full | verify")] = "incremental",
    wait: Annotated[float, typer.Option(help="Seconds to wait for another writer's lock.")] = 0.0,
    as_json: JsonOpt = False, dsh_home: DshOpt = None, autoclaw_root: AcOpt = None, home: HomeOpt = None,
) -> None:
    """Extract changed sources, rebuild the models and index, publish a new generation."""
    with _errors(as_json):
        wh = _open(dsh_home, autoclaw_root, home)
        try:
            with _progress(not as_json) as tick:
                doc = wh.reindex(mode=mode, progress=tick, wait_s=wait)
        except KeyboardInterrupt:
            raise KnowledgeError(Code.INTERNAL, "cancelled; the published generation is unchanged",
                                 cancelled=True) from None
        _emit(as_json, doc, _print_reindex)


@app.command()
def status(as_json: JsonOpt = False, dsh_home: DshOpt = None, autoclaw_root: AcOpt = None,
           home: HomeOpt = None) -> None:
    """knowledge_status: state, index_rev, last/next run, counts, coverage, errors."""
    with _errors(as_json):
        doc = _open(dsh_home, autoclaw_root, home).status()

        def human(d: dict[str, Any]) -> None:
            colour = {"ready": "green", "stale": "yellow", "degraded": "yellow"}.get(d["state"], "red")
            out.print(f"[{colour}]{d['state']}[/{colour}]  index_rev={d['index_rev']}  next_run={d['next_run']}")
            if d["last_run"]:
                lr = d["last_run"]
                out.print(f"last run: {lr['mode']} {lr['outcome']} at {lr['finished_at']} ({lr['duration_s']} s)")
            for name, c in sorted(d["counts"].items()):
                out.print(f"  {name:<18} {c}")
            for e in d["errors"]:
                out.print(f"[red]{e['code']}[/red] {e['source']} {e['unit']}: {e['message']}")

        _emit(as_json, doc, human)


def _print_search(d: dict[str, Any]) -> None:
    r = d["routing"]
    out.print(f"[bold]{d['query']}[/bold]  intent={r['intent']} ({r['confidence']}) — {r['reason']}")
    for a in d.get("actors", []):
        out.print(f"[cyan]actor[/cyan] {a.get('name')} [{a['kind']}/{a['source']}] confidence={a.get('confidence')} "
                  f"dispatch={a.get('dispatch', {}).get('mode')}")
        out.print("   why: " + "; ".join(a.get("why", [])))
        out.print("   evidence: " + ", ".join(e["id"] for e in a["evidence"]))
    for lane in ("episodes", "code", "skills"):
        ln = d["lanes"].get(lane)
        if not ln:
            continue
        flag = f" [yellow]degraded: {ln.get('degradation_reason')}[/yellow]" if ln.get("degraded") else ""
        out.print(f"[bold]{lane}[/bold] ({len(ln['items'])}){flag}")
        for it in ln["items"]:
            where = (f"{it['session_id']}#{it['seq']} {it.get('event_type')} {(it.get('time') or '')[:10]}"
                     if lane == "episodes" else f"{it['path']}:{it['start_line']}" if lane == "code"
                     else it["name"])
            out.print(f"  • {where}")
            if it.get("snippet"):
                out.print(f"    [dim]{it['snippet']}[/dim]", markup=True, highlight=False)
    for w in d.get("warnings", []):
        out.print(f"[yellow]{w['code']}[/yellow] {w['lane']}: {w['message']}")
    for e in d.get("errors", []):
        out.print(f"[red]{e['code']}[/red] {e['message']}")


@app.command()
def search(
    query: Annotated[str | None, typer.Argument(help="What to look for (a literal, never FTS or SQL syntax).")] = None,
    mode: Annotated[str, typer.Option(help="auto | find_agent | find_skill | find_code | find_knowledge")] = "auto",
    limit: Annotated[int, typer.Option(help="1..50 items in all lanes")] = 10,
    workspace: Annotated[list[str] | None, typer.Option("--workspace", help="Only these workspace roots.")] = None,
    request: Annotated[str | None, typer.Option("--request", help="a knowledge.search/v1 file; - = stdin")] = None,
    as_json: JsonOpt = False, dsh_home: DshOpt = None, autoclaw_root: AcOpt = None, home: HomeOpt = None,
) -> None:
    """knowledge_search v1: who did it, what bears on it (episodes, code, skills), with evidence."""
    with _errors(as_json):
        if request is not None:
            text = sys.stdin.read() if request == "-" else Path(request).read_text(encoding="utf-8")
            req: dict[str, Any] | str = text
        elif query is None:
            raise KnowledgeError(Code.INVALID_REQUEST, "query: give a QUERY or --request FILE", field="query")
        else:
            req = {"schema": "knowledge.search/v1", "query": query, "mode": mode, "limit": limit}
            if workspace:
                req["filters"] = {"workspaces": workspace}
        doc = _open(dsh_home, autoclaw_root, home).search(req)
        _emit(as_json, doc, _print_search)


@app.command("sql")
def sql_cmd(query: Annotated[str, typer.Argument(help="One read-only SQL query.")],
            limit: Annotated[int, typer.Option(min=1, max=100000)] = 1000,
            as_json: JsonOpt = False, dsh_home: DshOpt = None, autoclaw_root: AcOpt = None,
            home: HomeOpt = None) -> None:
    """Query the published generation read-only (any DuckDB client can open it too)."""
    with _errors(as_json):
        doc = _open(dsh_home, autoclaw_root, home).sql(query, limit=limit)

        def human(d: dict[str, Any]) -> None:
            t = Table(*d["columns"])
            for r in d["rows"]:
                t.add_row(*(str(v) for v in r))
            out.print(t)

        _emit(as_json, doc, human)


@app.command()
def sources(as_json: JsonOpt = False, dsh_home: DshOpt = None, autoclaw_root: AcOpt = None,
            home: HomeOpt = None) -> None:
    """Show the state of every source unit (revision, status, error code)."""
    with _errors(as_json):
        doc = _open(dsh_home, autoclaw_root, home).sources()

        def human(d: dict[str, Any]) -> None:
            t = Table(title="sources")
            for c in ("source", "units", "ok", "error", "excluded"):
                t.add_column(c)
            for name, s in sorted(d["sources"].items()):
                t.add_row(name, *(str(s.get(k, 0)) for k in ("units", "ok", "error", "excluded")))
            out.print(t)
            for u in d["units"]:
                if u["status"] == "error":
                    out.print(f"[red]{u['error_code']}[/red] {u['source']} {u['unit']}: {u['error']}")

        _emit(as_json, doc, human)


# -- config -----------------------------------------------------------------------
@config_app.command("show")
def config_show(as_json: JsonOpt = False, home: HomeOpt = None, dsh_home: DshOpt = None) -> None:
    """Print the effective settings (file + environment overrides)."""
    with _errors(as_json):
        paths = Paths.resolve(dsh_home, None, home)
        s = Settings.load(paths.config_file)
        doc = {"config_file": str(paths.config_file), "agent-knowledge": s.model_dump()}
        _emit(as_json, doc, lambda d: out.print_json(data=d))


@config_app.command("set")
def config_set(
    assignments: Annotated[list[str], typer.Argument(help="key=value pairs, e.g. schedule.times='[\"04:00\"]'")],
    as_json: JsonOpt = False, home: HomeOpt = None, dsh_home: DshOpt = None,
) -> None:
    """Validate and save settings; a bad key or value is named and nothing is written."""
    with _errors(as_json):
        paths = Paths.resolve(dsh_home, None, home)
        s = Settings.load(paths.config_file)
        for a in assignments:
            if "=" not in a:
                raise KnowledgeError(Code.CONFIG_INVALID, f"{a!r}: expected key=value", key=a)
            key, value = a.split("=", 1)
            s = s.with_value(key.strip(), value)
        s.save(paths.config_file)
        doc = {"config_file": str(paths.config_file), "agent-knowledge": s.model_dump()}
        _emit(as_json, doc, lambda d: out.print(f"saved {d['config_file']}"))


# -- fixtures -----------------------------------------------------------------------
@fixtures_app.command("generate")
def fixtures_generate(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to write dsh/, autoclaw/, workspaces/, manifest.json")],
    sessions: Annotated[int, typer.Option(min=1)] = 24,
    seed: Annotated[int, typer.Option()] = 7,
    events: Annotated[int | None, typer.Option(help="Total DSH events (default sessions*60).")] = None,
    broken: Annotated[bool, typer.Option(help="Also plant corrupt units.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Generate a realistic DSH home, AutoClaw root, skills and workspaces with a ground-truth manifest."""
    import akw_fixtures

    with _errors(as_json):
        with _progress(not as_json) as tick:
            cb = (lambda done, total: tick("generate", done, total)) if tick else None
            manifest = akw_fixtures.generate(out_dir, sessions=sessions, seed=seed, events=events,
                                             broken=broken, progress=cb)
        doc = {"out": str(out_dir.absolute()), "counts": manifest.get("counts", {}),
               "env": {"DSH_HOME": str((out_dir / "dsh").absolute()),
                       "AUTOCLAW_ROOT": str((out_dir / "autoclaw").absolute())}}
        _emit(as_json, doc, lambda d: out.print_json(data=d))


def main() -> None:  # pragma: no cover
    app()


# -- demo ---------------------------------------------------------------------------
DEMO_SCENARIOS = (
    ("UJ-1 who already migrated iya.ru?", "Кто уже занимался переносом сайта iya.ru на новый сервер?", "auto"),
    ("UJ-2 everything about the deploy-iya-ru skill", "deploy-iya-ru skill for a deployment", "find_skill"),
    ("UJ-4 what do we know about TLS certificates?", "what do we know about renewing TLS certificates", "auto"),
)
@app.command()
def demo(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for the generated sources and the warehouse.")] = Path(
        "demo"),
    sessions: Annotated[int, typer.Option(min=1)] = 24,
    seed: Annotated[int, typer.Option()] = 7,
    as_json: JsonOpt = False,
) -> None:
    """Generate realistic data (unless present), index it, run the UJ-1, UJ-2, UJ-4 and UJ-5 scenarios."""
    import akw_fixtures

    with _errors(as_json):
        manifest_file = out_dir / "manifest.json"
        if not manifest_file.exists():
            if not as_json:
                err.print(f"generating {sessions} sessions (seed {seed}) into {out_dir}/ …")
            akw_fixtures.generate(out_dir, sessions=sessions, seed=seed)
        wh = Warehouse.open(out_dir / "dsh", out_dir / "autoclaw", out_dir / "akw-home")
        with _progress(not as_json) as tick:
            doc: dict[str, Any] = {"reindex": wh.reindex(progress=tick)}
        doc["env"] = {"DSH_HOME": str(wh.paths.dsh_home), "AUTOCLAW_ROOT": str(wh.paths.autoclaw_root),
                      "AKW_HOME": str(wh.paths.home)}
        doc["scenarios"] = {name: wh.search({"schema": "knowledge.search/v1", "query": q, "mode": mode, "limit": 6})
                            for name, q, mode in DEMO_SCENARIOS}
        doc["status"] = wh.status()

        def human(d: dict[str, Any]) -> None:
            _print_reindex(d["reindex"])
            for (name, _q, _m), resp in zip(DEMO_SCENARIOS, d["scenarios"].values(), strict=True):
                out.rule(name)
                _print_search(resp)
            out.rule("UJ-5 status")
            st = d["status"]
            out.print(f"state={st['state']} index_rev={st['index_rev']} next_run={st['next_run']} "
                      f"db_bytes={st['db_bytes']}")
            out.print("Use this warehouse: " + " ".join(f"{k}={v}" for k, v in d["env"].items()))

        _emit(as_json, doc, human)


# -- eval / bench (golden set, benchmarks) --------------------------------------------
@app.command("eval")
def eval_cmd(
    golden: Annotated[Path | None, typer.Option(help="Golden set YAML (default golden/queries.yaml).")] = None,
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
    as_json: JsonOpt = False,
) -> None:
    """Run the golden set on generated data; recall@k, MRR, nDCG, zero-result, false hits; gate on thresholds."""
    from warehouse.evaluation.homes import default_data_dir
    from warehouse.evaluation.render import print_eval
    from warehouse.evaluation.runner import DEFAULT_GOLDEN, EvalConfig, Thresholds, run_eval

    with _errors(as_json):
        data = generate or default_data_dir("eval", sessions, seed)
        cfg = EvalConfig(golden=golden or DEFAULT_GOLDEN, data_dir=data, sessions=sessions, seed=seed,
                         out_dir=out_dir)
        limits = Thresholds(min_recall3=min_recall3, min_mrr=min_mrr, max_zero=max_zero, max_false_hit=max_false_hit)
        report = run_eval(cfg, limits, log=None if as_json else lambda m: err.print(m))
        _emit(as_json, report, lambda d: print_eval(out, d))
        if not report["passed"]:
            raise typer.Exit(code=1)


@app.command()
def bench(
    scale: Annotated[str, typer.Option(help="small (24 sessions) | 100k (100k events) | 1m (1M events, minutes)")] = (
        "small"),
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for bench-<scale>-<index_rev>.json.")] = Path(
        "reports"),
    work: Annotated[Path | None, typer.Option(help="Folder for generated data and homes (default: temp).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Cold/no-op/one-change build times, search latency per mode, peak RSS, size, SQLite FTS5 baseline."""
    import tempfile

    from warehouse.bench.render import print_bench
    from warehouse.bench.run import SCALES, run_bench

    with _errors(as_json):
        if scale not in SCALES:
            raise KnowledgeError(Code.INVALID_REQUEST, f"scale: one of {', '.join(SCALES)}", field="scale")
        folder = work or Path(tempfile.gettempdir()) / "akw-bench"
        report = run_bench(SCALES[scale], folder, out_dir, log=None if as_json else lambda m: err.print(m))
        _emit(as_json, report, lambda d: print_bench(out, d))
