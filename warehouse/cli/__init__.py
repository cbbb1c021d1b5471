"""`akw`: the ops surface, a thin mirror of `warehouse.api.Warehouse` (one command = one method call).

With `--json` a command prints exactly one JSON document on stdout and diagnostics on stderr; every
failure, option-parsing errors included, exits non-zero with `{"errors":[{"code":"KNOWLEDGE_…","message":…}]}`.
"""

from __future__ import annotations

import copy
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text
from typer.core import TyperCommand, TyperGroup

try:  # Typer >= 0.29 carries its own copy of click
    from typer._click import exceptions as click_errors
except ImportError:  # older Typer runs on click itself
    from click import exceptions as click_errors  # type: ignore[no-redef]

from warehouse import __version__
from warehouse.api import Warehouse, os_user, search_request
from warehouse.core.errors import MAX_REQUEST_BYTES, Code, KnowledgeError, request_too_large
from warehouse.core.redact import redact

Tick = Callable[[str, int, int | None], None]


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """`akw … | head`: the reader has what it wanted; leave quietly and successfully (as ripgrep does)."""
        self.quiet = True
        _mute_stdout()
        raise SystemExit(0)


out = _Console()
err = Console(stderr=True)

# --dsh-home/--autoclaw-root/--home: declared once; accepted before the command and, for the commands
# that open a warehouse, after it too (`akw search q --home X`, as the docs and tests have always written)
LOCATION = (
    ("--dsh-home", "dsh_home", "DSH home (default $DSH_HOME or ~/.dsh)."),
    ("--autoclaw-root", "autoclaw_root", "AutoClaw root holding accounts/ (default $AUTOCLAW_ROOT)."),
    ("--home", "home", "Warehouse folder (default $AKW_HOME)."),
)
LOCATION_ATTRS = frozenset(attr for _flag, attr, _help in LOCATION)
OPTION_LIKE = re.compile(r"--?[A-Za-z][\w-]*(=.*)?", re.S)


@dataclass
class CliState:
    """`ctx.obj`: where the warehouse lives; the Warehouse itself is opened on first use."""

    dsh_home: Path | None = None
    autoclaw_root: Path | None = None
    home: Path | None = None
    _wh: Warehouse | None = None

    @property
    def warehouse(self) -> Warehouse:
        if self._wh is None:
            self._wh = Warehouse.open(self.dsh_home, self.autoclaw_root, self.home)
        return self._wh


def _wh(ctx: typer.Context) -> Warehouse:
    return ctx.ensure_object(CliState).warehouse


# -- parsing: JSON usage errors, undecodable argv, dash-leading queries --------------------------
def _has_surrogate(s: str) -> bool:
    """Undecodable argv bytes arrive as lone surrogates; no output encoder can print them."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _wants_json(argv: Sequence[str]) -> bool:
    head = argv[: argv.index("--")] if "--" in argv else argv
    return "--json" in head


def _usage_error(e: click_errors.ClickException) -> dict[str, Any]:
    field = None
    if isinstance(e, click_errors.BadParameter) and e.param is not None:
        field = e.param.name
    elif isinstance(e, click_errors.NoSuchOption):
        field = e.option_name
    doc: dict[str, Any] = {"code": Code.INVALID_REQUEST.value, "message": redact(e.format_message())}
    return {**doc, "field": field} if field else doc


def _print_error(as_json: bool, error: dict[str, Any]) -> None:
    """Report a failure; a reader that already went away changes nothing about the exit code."""
    try:
        if as_json:
            doc = json.dumps({"errors": [error]}, ensure_ascii=False, sort_keys=True, default=str)
            sys.stdout.write(doc + "\n")
            sys.stdout.flush()
        else:
            err.print(f"[red]{error['code']}[/red]: {escape(str(error['message']))}", highlight=False)
    except BrokenPipeError:
        _mute_stdout()


def _mute_stdout() -> None:
    """The reader went away (`akw … | head`): drop the rest instead of failing again at exit."""
    with suppress(OSError, ValueError):  # not a real file (CliRunner): nothing will flush it later
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _leaves(group: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    for name, cmd in group.commands.items():
        if hasattr(cmd, "commands"):  # a sub-group (config, fixtures)
            yield from _leaves(cmd, f"{prefix}{name} ")
        else:
            yield f"{prefix}{name}", cmd


def _location_option(root: Any) -> Any:
    """A copy of a root location option for after the command (Typer's own type, so help shows it)."""
    attr = root.name

    def store(ctx: typer.Context, _param: Any, value: Any) -> None:
        if value is not None:
            setattr(ctx.ensure_object(CliState), attr, Path(value))

    opt = copy.copy(root)
    opt.expose_value, opt.callback = False, store
    opt.help = f"{root.help} Also accepted before the command."
    return opt


def home_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a command that opens a home: it also takes `--home/--dsh-home/--autoclaw-root` after its name.

    Put it under the `@app.command()` line; Typer's wrapper copies the mark (functools.update_wrapper).
    """
    fn.__akw_home_options__ = True  # type: ignore[attr-defined]
    return fn


def _takes_home_options(cmd: Any) -> bool:
    return bool(getattr(cmd.callback, "__akw_home_options__", False))


class AkwGroup(TyperGroup):
    """The root command: shared location options, JSON usage errors, undecodable argv, quiet broken pipes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        roots = [p for p in self.params if p.name in LOCATION_ATTRS]
        for _path, cmd in _leaves(self):
            if _takes_home_options(cmd):
                cmd.params.extend(_location_option(p) for p in roots)
        for cmd in self.commands.values():  # a group that is also a command itself (akw dispatch --request)
            if hasattr(cmd, "commands") and _takes_home_options(cmd):
                cmd.params.extend(_location_option(p) for p in roots)

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        as_json = _wants_json(argv)
        if any(_has_surrogate(a) for a in argv):
            _print_error(as_json, {"code": Code.INVALID_REQUEST.value,
                                   "message": "an argument is not valid UTF-8 text (undecodable bytes)"})
            sys.exit(2)
        if not (as_json and standalone_mode):
            return super().main(argv, prog_name, complete_var, standalone_mode, **extra)
        try:
            rv = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
        except click_errors.ClickException as e:
            _print_error(True, _usage_error(e))
            sys.exit(2)
        except typer.Abort:
            _print_error(True, {"code": Code.INTERNAL.value, "message": "cancelled", "cancelled": True})
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


class DashQueryCommand(TyperCommand):
    """Lets a positional that starts with '-' but cannot be an option ("-rf flag", "-5") reach the argument."""

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        takes_value = {o for p in self.get_params(ctx) if p.param_type_name == "option" and not p.is_flag
                       and not p.count for o in p.opts}
        return super().parse_args(ctx, _positionals_last(args, takes_value))


def _positionals_last(args: list[str], takes_value: set[str]) -> list[str]:
    """Options first, then `--`, then every positional: click can no longer mistake one for an option."""
    opts: list[str] = []
    pos: list[str] = []
    expect_value = False
    for i, a in enumerate(args):
        if expect_value:
            opts.append(a)
            expect_value = False
        elif a == "--":
            pos += args[i + 1:]
            break
        elif OPTION_LIKE.fullmatch(a):
            opts.append(a)
            expect_value = a in takes_value
        else:
            pos.append(a)
    return [*opts, "--", *pos] if pos else opts


app = typer.Typer(cls=AkwGroup, add_completion=False, no_args_is_help=True, help="Agent Knowledge Warehouse")
config_app = typer.Typer(no_args_is_help=True, help="Show or change settings (agent-knowledge section).")
fixtures_app = typer.Typer(no_args_is_help=True, help="Generate realistic source data.")
dispatch_app = typer.Typer(help="knowledge_dispatch v1: plan a hand-over (dry run) or record it; read the outbox.")
team_app = typer.Typer(no_args_is_help=True, help="The shared team lake: DuckLake with a PostgreSQL catalog.")
app.add_typer(config_app, name="config")
app.add_typer(fixtures_app, name="fixtures")
app.add_typer(dispatch_app, name="dispatch")
schedule_app = typer.Typer(no_args_is_help=True, help="The reindex schedule: what is due, run it once, install it.")
app.add_typer(schedule_app, name="schedule")
index_app = typer.Typer(no_args_is_help=True, help="The whole derived index (generations, lake, state).")
app.add_typer(index_app, name="index")
app.add_typer(team_app, name="team")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]
DshOpt = Annotated[Path | None, typer.Option(LOCATION[0][0], help=LOCATION[0][2])]
AcOpt = Annotated[Path | None, typer.Option(LOCATION[1][0], help=LOCATION[1][2])]
HomeOpt = Annotated[Path | None, typer.Option(LOCATION[2][0], help=LOCATION[2][2])]


def _version(value: bool) -> None:
    if value:
        out.print(f"akw {__version__}", markup=False, highlight=False)
        raise typer.Exit()


@app.callback()
def _root(ctx: typer.Context, dsh_home: DshOpt = None, autoclaw_root: AcOpt = None, home: HomeOpt = None,
          version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print the version and exit.")] = False) -> None:
    ctx.obj = CliState(dsh_home, autoclaw_root, home)


# -- output -----------------------------------------------------------------------------------
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
    except BrokenPipeError:
        _mute_stdout()
        raise typer.Exit(0) from None
    except PermissionError as e:  # a folder or file the user pointed at and may not touch
        _fail(as_json, {"code": Code.INVALID_REQUEST.value, "message": f"permission denied: {e.filename}"})
    except Exception as e:
        _fail(as_json, {"code": Code.INTERNAL.value, "message": redact(f"{type(e).__name__}: {e}")})


def _fail(as_json: bool, error: dict[str, Any]) -> NoReturn:
    _print_error(as_json, error)
    raise typer.Exit(code=2)


def _log(as_json: bool) -> Callable[[str], None] | None:
    return None if as_json else lambda m: err.print(m, markup=False, highlight=False)


@contextmanager
def _progress(enabled: bool) -> Iterator[Tick | None]:
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


def _text(v: Any) -> str:
    """A value as readable text: mappings as k=v, lists comma-joined (never a Python repr)."""
    if isinstance(v, dict):
        return ", ".join(f"{k}={_text(x)}" for k, x in v.items()) or "-"
    if isinstance(v, list | tuple | set):
        return ", ".join(_text(x) for x in v) or "-"
    return "-" if v is None else str(v)


def _cell(v: Any) -> Text:
    """A SQL value for a table cell: nested values as JSON, never interpreted as markup."""
    if isinstance(v, dict | list | tuple):
        return Text(json.dumps(v, ensure_ascii=False, default=str))
    return Text("NULL" if v is None else str(v))


def _print_env(env: dict[str, str]) -> None:
    out.print("Use it: " + " ".join(f"{k}={v}" for k, v in env.items()), markup=False, highlight=False)


# -- reindex ----------------------------------------------------------------------------------
def _print_extract(doc: dict[str, Any]) -> None:
    t = Table(title=f"extract ({doc['duration_s']} s, {doc['files_written']} files written)")
    for c in ("source", "root", "seen", "changed", "unchanged", "failed", "removed", "rows written", "errors"):
        t.add_column(c, justify="right" if c not in ("source", "root", "errors") else "left")
    for s in doc["sources"]:
        u = s["units"]
        errs = ", ".join(sorted({e["code"] for e in s["errors"]})) or "-"
        t.add_row(Text(s["source"]), Text(s.get("root", "ok")),
                  *(str(u[k]) for k in ("seen", "changed", "unchanged", "failed", "removed")),
                  Text(_text(s["rows_written"])), errs)
    out.print(t)


def _print_reindex(doc: dict[str, Any]) -> None:
    if "extract" in doc:
        _print_extract(doc["extract"])
    if doc.get("mode") == "verify":
        out.print("[green]verify: ok[/green]" if doc["ok"] else "[red]verify: mismatches[/red]")
        for m in doc["mismatches"]:
            rest = {k: v for k, v in m.items() if k != "check"}
            out.print(f"  {m.get('check')}: {_text(rest)}", markup=False, highlight=False)
        return
    build = doc.get("build") or {}
    counts = f"; {_text(build['counts'])}" if build.get("counts") else ""
    out.print(f"{doc['outcome']}: index_rev {doc['index_rev']} ({doc['generation']}) in {doc['duration_s']} s{counts}",
              markup=False, highlight=False)


@app.command()
@home_options
def reindex(
    ctx: typer.Context,
    mode: Annotated[str, typer.Option(help="incremental | full | verify")] = "incremental",
    wait: Annotated[float, typer.Option(help="Seconds to wait for another writer's lock.")] = 0.0,
    snapshot: Annotated[int | None, typer.Option(help="Team lake: rebuild from this catalog snapshot.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Extract changed sources, rebuild the models and index, publish a new generation."""
    with _errors(as_json):
        wh = _wh(ctx)
        try:
            with _progress(not as_json) as tick:
                doc = wh.reindex(mode=mode, progress=tick, wait_s=wait, snapshot=snapshot)
        except KeyboardInterrupt:
            raise KnowledgeError(Code.INTERNAL, "cancelled; the published generation is unchanged",
                                 cancelled=True) from None
        _emit(as_json, doc, _print_reindex)


# -- team -----------------------------------------------------------------------------------------
def _print_team(d: dict[str, Any]) -> None:
    colour = {"ready": "green", "behind": "yellow", "degraded": "yellow"}.get(d.get("state", ""), "red")
    out.print(f"[{colour}]{d.get('state', 'initialised')}[/{colour}]  writer={d.get('writer_id')}  "
              f"snapshot={d.get('snapshot_id')}  built={d.get('built_snapshot_id')}  "
              f"unpushed={d.get('unpushed_units', '-')}", highlight=False)
    for w in d.get("writers", []):
        out.print(f"  {w['writer_id']:<24} last commit {w['last_commit_at']} (snapshot {w['last_snapshot_id']}, "
                  f"{w['units']} units, {w['lag_s']} s ago)", markup=False, highlight=False)
    for e in d.get("errors", []):
        out.print(f"[red]{e['code']}[/red] " + escape(str(e["message"])))


@team_app.command("init")
@home_options
def team_init(
    ctx: typer.Context,
    catalog: Annotated[str, typer.Option(help="libpq DSN of the PostgreSQL catalog, without a password.")],
    data_path: Annotated[str, typer.Option(help="Shared folder (or s3:// URL) of the lake's data files.")],
    writer_id: Annotated[str | None, typer.Option(help="Who this machine's data comes from (default user@host).")] = (
        None),
    as_json: JsonOpt = False,
) -> None:
    """Create the team catalog's tables (idempotent) and switch this home to lake.backend=ducklake."""
    with _errors(as_json):
        _emit(as_json, _wh(ctx).team_init(catalog, data_path, writer_id), _print_team)


@team_app.command("push")
@home_options
def team_push(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Extract what changed and commit it to the team lake, one transaction per unit batch (no build)."""
    with _errors(as_json):
        with _progress(not as_json) as tick:
            doc = _wh(ctx).team_push(progress=tick)
        _emit(as_json, doc, lambda d: (_print_extract(d), out.print(_text(d.get("push")), markup=False)))


@team_app.command("status")
@home_options
def team_status(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Writers, their last commit, snapshot ids and this machine's lag; `degraded` when the catalog is away."""
    with _errors(as_json):
        _emit(as_json, _wh(ctx).team_status(), _print_team)


# -- status / sources ---------------------------------------------------------------------------
def _print_status(d: dict[str, Any]) -> None:
    colour = {"ready": "green", "stale": "yellow", "degraded": "yellow"}.get(d["state"], "red")
    out.print(f"[{colour}]{d['state']}[/{colour}]  index_rev={d['index_rev']}  next_run={d['next_run']}")
    if d.get("disabled"):
        out.print(f"{d['disabled']['reason']}; index kept: {d['disabled']['index_kept']}", markup=False,
                  highlight=False)
    if d["last_run"]:
        lr = d["last_run"]
        out.print(f"last run: {lr['mode']} {lr['outcome']} at {lr['finished_at']} ({lr['duration_s']} s)")
    if d.get("reason"):
        out.print("reason: " + escape(d["reason"]) + (f"\nfix: {escape(d['fix'])}" if d.get("fix") else ""))
    for n in d.get("notes", []):
        out.print(f"[yellow]{n['code']}[/yellow] " + escape(n["message"]))
    for name, r in d.get("roots", {}).items():
        if r["state"] != "ok":
            out.print(f"  source {name}: {r['state']} ({r['root']})", markup=False, highlight=False)
    for name, c in sorted(d["counts"].items()):
        out.print(f"  {name:<18} {_text(c)}", markup=False)
    for e in d["errors"]:
        out.print(f"[red]{e['code']}[/red] " + escape(f"{e['source']} {e['unit']}: {e['message']}"))


@app.command()
@home_options
def status(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """knowledge_status: state, index_rev, last/next run, counts, coverage, errors."""
    with _errors(as_json):
        _emit(as_json, _wh(ctx).status(), _print_status)


def _print_sources(d: dict[str, Any]) -> None:
    t = Table(title="sources")
    for c in ("source", "units", "ok", "error", "excluded"):
        t.add_column(c)
    for name, s in sorted(d["sources"].items()):
        t.add_row(Text(name), *(str(s.get(k, 0)) for k in ("units", "ok", "error", "excluded")))
    out.print(t)
    for u in d["units"]:
        if u["status"] == "error":
            out.print(f"[red]{u['error_code']}[/red] " + escape(f"{u['source']} {u['unit']}: {u['error']}"))


@app.command()
@home_options
def sources(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Show the state of every source unit (revision, status, error code)."""
    with _errors(as_json):
        _emit(as_json, _wh(ctx).sources(), _print_sources)


# -- search / sql -----------------------------------------------------------------------------
def _where(lane: str, it: dict[str, Any]) -> str:
    if lane == "episodes":
        who = f" — {it['actor']['name']}" if (it.get("actor") or {}).get("name") else ""
        return f"{it['session_id']}#{it['seq']} {it.get('event_type')} {(it.get('time') or '')[:10]}{who}"
    return f"{it['path']}:{it['start_line']}" if lane == "code" else str(it["name"])


def _print_search(d: dict[str, Any]) -> None:
    r = d["routing"]
    out.print(f"[bold]{escape(d['query'])}[/bold]  "
              + escape(f"intent={r['intent']} ({r['confidence']}) — {r['reason']}"))
    for a in d.get("actors", []):
        out.print("[cyan]actor[/cyan] " + escape(f"{a.get('name')} [{a['kind']}/{a['source']}] confidence="
                                                 f"{a.get('confidence')} dispatch={a.get('dispatch', {}).get('mode')}"))
        if a.get("context") or a.get("description"):
            out.print("   " + (a.get("context") or a.get("description")), markup=False)
        out.print("   why: " + "; ".join(a.get("why", [])), markup=False)
        out.print("   evidence: " + ", ".join(e["id"] for e in a["evidence"]), markup=False)
    for lane in ("episodes", "code", "skills"):
        ln = d["lanes"].get(lane)
        if not ln:
            continue
        flag = f" [yellow]degraded: {escape(str(ln.get('degradation_reason')))}[/yellow]" if ln.get("degraded") else ""
        out.print(f"[bold]{lane}[/bold] ({len(ln['items'])}){flag}")
        for it in ln["items"]:
            out.print(f"  • {_where(lane, it)}", markup=False)
            if it.get("snippet"):
                out.print(Text(f"    {it['snippet']}", style="dim"), highlight=False)
    for w in d.get("warnings", []):
        out.print(f"[yellow]{w['code']}[/yellow] " + escape(f"{w['lane']}: {w['message']}"))
    for e in d.get("errors", []):
        out.print(f"[red]{e['code']}[/red] " + escape(str(e["message"])))


def _read_request(source: str) -> str:
    """The request document from a file or stdin (`-`), as UTF-8: unreadable input is the caller's mistake."""
    try:
        if source == "-":
            data = sys.stdin.buffer.read(MAX_REQUEST_BYTES + 1)
        else:
            with open(source, "rb") as fh:  # at most one byte past the cap: /dev/zero is refused at once
                data = fh.read(MAX_REQUEST_BYTES + 1)
    except OSError as e:
        raise KnowledgeError(Code.INVALID_REQUEST, f"--request: cannot read {source} ({e.strerror})",
                             field="request") from None
    if len(data) > MAX_REQUEST_BYTES:
        raise request_too_large()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise KnowledgeError(Code.INVALID_REQUEST, f"--request: not UTF-8 text (byte {e.start})",
                             field="request") from None


@app.command(cls=DashQueryCommand)
@home_options
def search(
    ctx: typer.Context,
    query: Annotated[str | None, typer.Argument(
        help="What to look for (a literal, never FTS or SQL syntax). One that starts with '-' goes after "
             "'--': akw search -- -foo")] = None,
    mode: Annotated[str, typer.Option(help="auto | find_agent | find_skill | find_code | find_knowledge")] = "auto",
    limit: Annotated[int, typer.Option(help="1..50 items in all lanes")] = 10,
    workspace: Annotated[list[str] | None, typer.Option(
        "--workspace", help="Only these workspaces: id, path, folder name or title (repeatable).")] = None,
    request: Annotated[str | None, typer.Option("--request", help="a knowledge.search/v1 file; - = stdin")] = None,
    as_json: JsonOpt = False,
) -> None:
    """knowledge_search v1: who did it, what bears on it (episodes, code, skills), with evidence."""
    with _errors(as_json):
        if request is not None:
            req: dict[str, Any] | str = _read_request(request)
        elif query is None:
            raise KnowledgeError(Code.INVALID_REQUEST, "query: give a QUERY or --request FILE", field="query")
        else:
            req = search_request(query, mode, limit, workspace)
        _emit(as_json, _wh(ctx).search(req), _print_search)


_UNTRUSTED = re.compile(r'<untrusted-data note="[^"]*">|</untrusted-data>')


def _plain(v: Any) -> str:
    """Card text for a person: the untrusted-data markers dropped (they are for models), one line."""
    return " ".join(_UNTRUSTED.sub("", _text(v)).split())


def _print_points(title: str, points: list[dict[str, Any]]) -> None:
    if points:
        out.print(f"[bold]{title}[/bold]")
    for p in points:
        ev = ", ".join(e["id"] for e in p.get("evidence", []))
        out.print(Text(f"  • {_plain(p['text'])}" + (f"  [{ev}]" if ev else "")), highlight=False)


def _print_card(d: dict[str, Any]) -> None:
    """Readable text of any card: a headline, then its sections line by line (no raw dicts)."""
    kind = d["schema"].split(".")[2].split("/")[0]
    name = d.get("display_name") or d.get("name") or d.get("title") or d.get("path") or ""
    ident = d.get("actor_id") or d.get("skill_id") or d.get("episode_id") or d.get("id")
    out.print(Text(f"{kind}: {_plain(name)}", style="bold"), highlight=False)
    out.print(Text(f"  id {ident}   index {d['index_rev']}"), highlight=False)
    skip = {"schema", "index_rev", "display_name", "name", "title", "actor_id", "skill_id", "episode_id", "id",
            "task_answer", "task_fit", "truncated", "notices", "body", "transcript"}
    for key, v in d.items():
        if key in skip or v in (None, [], {}):
            continue
        if isinstance(v, list) and v and isinstance(v[0], dict):
            out.print(f"[bold]{key}[/bold] ({len(v)})")
            for row in v[:20]:
                out.print(Text(f"  • {_plain(row)}"), highlight=False)
        elif isinstance(v, dict):
            out.print(f"[bold]{key}[/bold]")
            for k, x in v.items():
                if x not in (None, [], {}):
                    out.print(Text(f"  {k}: {_plain(x)}"), highlight=False)
        else:
            out.print(Text(f"{key}: {_plain(v)}"), highlight=False)
    if d.get("body"):
        out.print("[bold]body[/bold]")
        out.print(Text(_UNTRUSTED.sub("", d["body"]), style="dim"), highlight=False)
    for ev in d.get("transcript", []):
        out.print(Text(f"  #{ev.get('seq')} {ev['role']}{' ' + ev['tool'] if ev.get('tool') else ''}"
                       f"{' ERROR' if ev.get('is_error') else ''}: {_plain(ev.get('text'))[:300]}", style="dim"),
                  highlight=False)
    _print_points("task fit", d.get("task_fit", []))
    ta = d.get("task_answer")
    if ta:
        out.print(Text(f"task: {ta['task']}  (matched: {', '.join(ta['matched_terms']) or '-'})", style="bold"))
        for section in ("applicability", "limits", "typical_errors", "checklist"):
            _print_points(section.replace("_", " "), ta[section])
    for n in d.get("notices", []):
        out.print(f"[yellow]{escape(n['code'])}[/yellow] " + escape(n["message"]))
    for c in d.get("truncated", []):
        out.print(Text(f"cut: {c['field']} {c['shown_chars']}/{c['total_chars']} — {c['rest']}", style="yellow"))


@app.command("get", cls=DashQueryCommand)
@home_options
def get_cmd(
    ctx: typer.Context,
    kind: Annotated[str, typer.Argument(help="agent | skill | episode | code")],
    ident: Annotated[str, typer.Argument(metavar="ID", help="An id a search response returned (actor id, "
                                                            "evidence/item id, skill name, code id).")],
    task: Annotated[str | None, typer.Option("--task", help="Answer this task (skill: applicability, limits, "
                                                            "typical errors, checklist).")] = None,
    source: Annotated[str | None, typer.Option("--source", help="Skill: which root when several hold the name "
                                                                "(skill id, root kind, account, workspace).")] = None,
    max_chars: Annotated[int | None, typer.Option("--max-chars", help="Cut long texts at N characters "
                                                                     "(default 12000).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """knowledge_get_*: the full card of an agent, skill, episode or code chunk by id."""
    with _errors(as_json):
        _emit(as_json, _wh(ctx).get(kind, ident, task=task, source=source, max_chars=max_chars), _print_card)


def _print_sql(d: dict[str, Any]) -> None:
    t = Table()
    for c in d["columns"]:
        t.add_column(Text(c))
    for r in d["rows"]:
        t.add_row(*(_cell(v) for v in r))
    out.print(t)
    if d.get("truncated"):
        err.print(f"(first {len(d['rows'])} rows; raise --limit for more)", markup=False)


@app.command("sql", cls=DashQueryCommand)
@home_options
def sql_cmd(ctx: typer.Context, query: Annotated[str, typer.Argument(help="One read-only SQL query.")],
            limit: Annotated[int, typer.Option(min=1, max=100000)] = 1000, as_json: JsonOpt = False) -> None:
    """Query the published generation read-only (any DuckDB client can open it too)."""
    with _errors(as_json):
        _emit(as_json, _wh(ctx).sql(query, limit=limit), _print_sql)


# -- feedback ---------------------------------------------------------------------------------
def _print_feedback(d: dict[str, Any]) -> None:
    verdict = "useful" if d["useful"] else "not useful"
    out.print(f"recorded {verdict} for {d['result_id']} ({d['votes']['useful']} useful, "
              f"{d['votes']['not_useful']} not useful; ranking x{d['boost']})", markup=False, highlight=False)


@app.command("feedback")
@home_options
def feedback_cmd(
    ctx: typer.Context,
    result_id: Annotated[str, typer.Argument(help="An id a search response returned.")],
    useful: Annotated[bool | None, typer.Option("--useful/--not-useful", help="The verdict (one is required).")] = None,
    request_id: Annotated[str | None, typer.Option("--request-id", help="The search's request_id.")] = None,
    chosen: Annotated[str | None, typer.Option("--chosen", help="The actor or skill id that was chosen.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Say whether a result was useful (stored as ids and a verdict only; it nudges ranking, boundedly)."""
    with _errors(as_json):
        if useful is None:
            raise KnowledgeError(Code.INVALID_REQUEST, "give --useful or --not-useful", field="useful")
        _emit(as_json, _wh(ctx).feedback(result_id, useful, request_id=request_id, chosen=chosen), _print_feedback)


# -- schedule / daemon --------------------------------------------------------------------------
NowOpt = Annotated[str | None, typer.Option("--now", help="Pretend it is this ISO time (what-if, tests).")]


def _now(value: str | None) -> Any:
    if value is None:
        return None
    from warehouse.home.schedule import parse_ts

    at = parse_ts(value)
    if at is None:
        raise KnowledgeError(Code.INVALID_REQUEST, "now: an ISO time, e.g. 2030-03-31T03:05:00+02:00", field="now")
    return at


def _print_schedule(d: dict[str, Any]) -> None:
    state = "enabled" if d["enabled"] else "disabled (nothing runs)"
    out.print(f"schedule {d['mode']} {', '.join(d['times'])} {d['zone']}; {state}", markup=False, highlight=False)
    out.print("next runs: " + (", ".join(d["next_runs"]) or "-"), markup=False, highlight=False)
    last = d["last_run"] or {}
    out.print(f"last run: {last.get('started_at') or '-'} {last.get('outcome') or ''}".rstrip(), markup=False,
              highlight=False)
    due = d["due"]
    out.print(f"due now: {'yes' if due['due'] else 'no'} ({due['reason'] or 'nothing missed'}"
              f"{', slot ' + due['slot'] if due['slot'] else ''}); stale={d['stale']}", markup=False, highlight=False)


@schedule_app.command("show")
@home_options
def schedule_show(ctx: typer.Context, now: NowOpt = None, as_json: JsonOpt = False) -> None:
    """The next runs, the last run and what is due now."""
    with _errors(as_json):
        _emit(as_json, _wh(ctx).schedule_show(now=_now(now)), _print_schedule)


@schedule_app.command("run-due")
@home_options
def schedule_run_due(ctx: typer.Context, now: NowOpt = None, as_json: JsonOpt = False) -> None:
    """Run the due job once and exit (for cron / systemd timers); nothing due is a success too."""
    with _errors(as_json):
        doc = _wh(ctx).schedule_run_due(now=_now(now))
        _emit(as_json, doc, lambda d: out.print(f"{'ran' if d['ran'] else 'nothing run'}: {d['reason']}"
                                                + (f" ({d['run'].get('outcome')})" if d.get("run") else ""),
                                                markup=False, highlight=False))
    if doc.get("run", {}).get("outcome") == "failed":
        raise typer.Exit(code=1)


@schedule_app.command("install")
@home_options
def schedule_install(
    ctx: typer.Context,
    print_only: Annotated[bool, typer.Option("--print", help="Print the crontab line and systemd units.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Print a crontab line and a systemd user timer + service (installs nothing itself)."""
    with _errors(as_json):
        if not print_only:
            raise KnowledgeError(Code.INVALID_REQUEST, "install only prints (akw schedule install --print); "
                                 "place the texts yourself", field="print")
        doc = _wh(ctx).schedule_install()

        def human(d: dict[str, Any]) -> None:  # plain writes: a wrapped crontab line would be a broken one
            sys.stdout.write(f"# crontab -e\n{d['crontab']}\n\n")
            for name, text in d["systemd"].items():
                sys.stdout.write(f"# ~/.config/systemd/user/{name}\n{text}\n")
            sys.stdout.write("".join(f"# {step}\n" for step in d["steps"]))

        _emit(as_json, doc, human)


@app.command("daemon")
@home_options
def daemon_cmd(
    ctx: typer.Context,
    tick: Annotated[float, typer.Option("--tick", min=0.2, max=3600, help="Seconds between checks (at most).")] = 60,
    as_json: JsonOpt = False,
) -> None:
    """Run the schedule in the foreground until SIGTERM/SIGINT (logs on stderr, without content)."""
    from warehouse.daemon import run_daemon

    state = ctx.ensure_object(CliState)

    def log(line: str) -> None:
        stamp = __import__("datetime").datetime.now().astimezone().isoformat(timespec="seconds")
        sys.stderr.write(f"{stamp} akw daemon: {line}\n")
        sys.stderr.flush()

    with _errors(as_json):
        code = run_daemon(lambda: Warehouse.open(state.dsh_home, state.autoclaw_root, state.home), log, tick_s=tick)
        if as_json:
            _emit(True, {"stopped": True, "exit_code": code}, lambda d: None)
    raise typer.Exit(code=code)


# -- dispatch ---------------------------------------------------------------------------------
def _print_dispatch(d: dict[str, Any]) -> None:
    t = d.get("target")
    if t:
        av = "available" if t["dispatch"]["available"] else "not available: " + "; ".join(t["dispatch"]["reasons"])
        out.print(f"[bold]{d['mode']}[/bold] → " + escape(f"{t['name']} ({t['actor_id']}) via {t['choice']}; "
                                                        f"{t['dispatch']['mode']} {av}"))
        out.print("   why: " + "; ".join(t["why"]), markup=False)
    pack = d["context_pack"]
    for label, key in (("prior episodes", "prior_episodes"), ("code refs", "code_refs"), ("skills", "skills"),
                       ("risks", "risks")):
        out.print(f"   {label}: {len(pack[key])}", markup=False)
    if d.get("handoff"):
        calls = ", ".join(c["tool"] for c in d["handoff"]["tool_calls"]) or "none (a package only)"
        out.print(f"   handoff {d['handoff']['assignment_id']}: tool calls {calls}; execution "
                  f"{d['handoff']['execution']}", markup=False)
    if d.get("assignment"):
        a = d["assignment"]
        out.print(("[green]recorded[/green] " if a["created"] else "[yellow]already recorded[/yellow] ")
                  + escape(f"{a['assignment_id']} → {a['package_file']}"))
    if d.get("suggestion"):
        out.print("   suggestion: create a new actor " + escape(d["suggestion"]["name"]))
    for w in d.get("warnings", []):
        out.print(f"[yellow]{w['code']}[/yellow] " + escape(w["message"]))
    for e in d.get("errors", []):
        out.print(f"[red]{e['code']}[/red] " + escape(e["message"]))


@dispatch_app.callback(invoke_without_command=True)
@home_options
def dispatch_cmd(
    ctx: typer.Context,
    request: Annotated[str | None, typer.Option("--request", help="a knowledge.dispatch/v1 file; - = stdin")] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Confirm a commit (sets confirm: true).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Plan a hand-over (dry run by default); `dry_run: false, commit: true` + --yes records it in the outbox."""
    if ctx.invoked_subcommand is not None:
        return
    with _errors(as_json):
        if request is None:
            raise KnowledgeError(Code.INVALID_REQUEST, "request: give --request FILE (- = stdin), or list | show ID",
                                 field="request")
        text = _read_request(request)
        if yes:
            try:
                doc = json.loads(text)
            except ValueError:
                doc = None
            if isinstance(doc, dict):
                text = json.dumps({**doc, "confirm": True}, ensure_ascii=False)
        doc = _wh(ctx).dispatch(text, requested_by=f"cli:{os_user()}")
        _emit(as_json, doc, _print_dispatch)
    if doc["errors"]:
        raise typer.Exit(code=1)


def _print_outbox(d: dict[str, Any]) -> None:
    t = Table("assignment", "dispatch_id", "actor", "mode", "created_at", title=f"outbox {d['outbox']}")
    for a in d["assignments"]:
        t.add_row(*(Text(str(a.get(k))) for k in ("assignment_id", "dispatch_id", "actor_id", "dispatch_mode",
                                                  "created_at")))
    out.print(t)


@dispatch_app.command("list")
@home_options
def dispatch_list(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """The recorded dispatches in the outbox, oldest first."""
    with _errors(as_json):
        _emit(as_json, _wh(ctx).dispatch_list(), _print_outbox)


@dispatch_app.command("show")
@home_options
def dispatch_show(ctx: typer.Context, ident: Annotated[str, typer.Argument(help="assignment id or dispatch id")],
                  as_json: JsonOpt = False) -> None:
    """One recorded dispatch: its assignment row and its knowledge.handoff/v1 package."""
    with _errors(as_json):
        _emit(as_json, _wh(ctx).dispatch_show(ident),
              lambda d: out.print(json.dumps(d, ensure_ascii=False, indent=1), markup=False, highlight=False))


# -- lifecycle: forget, delete, on/off ----------------------------------------------------------
def _print_lines(d: dict[str, Any]) -> None:
    """`key=value` lines (counts, states): never indexed text, which these documents do not carry."""
    for k, v in _flat(d):
        out.print(f"{k}={_text(v)}", markup=False, highlight=False)


@app.command()
def forget(
    ctx: typer.Context,
    kind: Annotated[str, typer.Argument(help="session | actor | skill | workspace | all")],
    ident: Annotated[str | None, typer.Argument(metavar="ID", help="the id (for `all`: omit it or `all`)")] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Really forget (without it: a dry run that only counts).")]
    = False,
    as_json: JsonOpt = False,
) -> None:
    """knowledge_forget: remove an item everywhere under AKW_HOME, keep it out of later runs, prove no residue."""
    with _errors(as_json):
        if ident is None and kind != "all":
            raise KnowledgeError(Code.INVALID_REQUEST, "ID: required unless KIND is all", field="id")
        _emit(as_json, _wh(ctx).forget(kind, ident or "all", confirm=yes), _print_lines)


@index_app.command("delete")
def index_delete(
    ctx: typer.Context,
    yes: Annotated[bool, typer.Option("--yes", help="Really delete (without it: a dry run that only counts).")]
    = False,
    as_json: JsonOpt = False,
) -> None:
    """Delete the derived index (generations, lake, state); settings, tombstones and the outbox stay."""
    with _errors(as_json):
        _emit(as_json, _wh(ctx).delete_index(confirm=yes), _print_lines)


def _print_onoff(d: dict[str, Any]) -> None:
    st = d["status"]
    out.print(f"enabled={d['enabled']}  state={st['state']}  index_rev={st['index_rev']}", markup=False,
              highlight=False)
    if st.get("disabled"):
        out.print(f"{st['disabled']['reason']}; index kept: {st['disabled']['index_kept']}", markup=False,
                  highlight=False)


@app.command()
def disable(
    ctx: typer.Context,
    keep_index: Annotated[bool, typer.Option("--keep-index/--delete-index",
                                             help="Keep the index for a rebuild-free enable, or delete it.")] = True,
    as_json: JsonOpt = False,
) -> None:
    """Turn agent-knowledge off: indexing stops, reads answer KNOWLEDGE_DISABLED, status says why."""
    with _errors(as_json):
        _emit(as_json, _wh(ctx).disable(keep_index=keep_index), _print_onoff)


@app.command()
def enable(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Turn agent-knowledge back on (a kept index answers at once)."""
    with _errors(as_json):
        _emit(as_json, _wh(ctx).enable(), _print_onoff)


# -- config -----------------------------------------------------------------------------------
def _flat(d: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for k, v in d.items():
        if isinstance(v, dict) and v:
            yield from _flat(v, f"{prefix}{k}.")
        else:
            yield f"{prefix}{k}", v


def _print_settings(d: dict[str, Any]) -> None:
    """One `key=value` line per setting, in the syntax `akw config set` accepts."""
    out.print(f"# {d['config_file']}", markup=False, highlight=False)
    for k, v in _flat(d["agent-knowledge"]):
        out.print(f"{k}={json.dumps(v, ensure_ascii=False, default=str)}", markup=False, highlight=False)


@config_app.command("show")
@home_options
def config_show(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Print the effective settings (file + environment overrides)."""
    with _errors(as_json):
        _emit(as_json, _wh(ctx).config_show(), _print_settings)


@config_app.command("set")
@home_options
def config_set(
    ctx: typer.Context,
    assignments: Annotated[list[str], typer.Argument(help="key=value pairs, e.g. schedule.times='[\"04:00\"]'")],
    as_json: JsonOpt = False,
) -> None:
    """Validate and save settings; a bad key or value is named and nothing is written."""
    with _errors(as_json):
        doc = _wh(ctx).config_set(assignments)
        _emit(as_json, doc, lambda d: [out.print(line, markup=False, highlight=False) for line in
                                       [f"saved {d['config_file']}", *(n["message"] for n in d.get("notes", []))]])


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


def _print_fixtures(d: dict[str, Any]) -> None:
    t = Table("what", "count", title=f"generated into {d['out']}")
    for k, v in sorted(d["counts"].items()):
        t.add_row(Text(k), Text(_text(v)))
    out.print(t)
    _print_env(d["env"])


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
    with _errors(as_json):
        with _progress(not as_json) as tick:
            doc = Warehouse.generate_fixtures(out_dir, sessions=sessions, seed=seed, events=events, broken=broken,
                                              progress=_fixture_ticks(tick))
        _emit(as_json, doc, _print_fixtures)


def _print_demo(d: dict[str, Any]) -> None:
    _print_reindex(d["reindex"])
    for name, resp in d["scenarios"].items():
        out.rule(escape(name))
        _print_search(resp)
    if d.get("dispatch"):
        out.rule(escape(d["dispatch"]["title"]))
        _print_dispatch(d["dispatch"]["dry_run"])
        _print_dispatch(d["dispatch"]["commit"])
        pkg = d["dispatch"]["outbox"]
        out.print(f"outbox package: {pkg['package_file']} ({pkg['handoff']['schema']}, "
                  f"execution {pkg['handoff']['execution']})", markup=False, highlight=False)
    out.rule("UJ-5 status")
    st = d["status"]
    out.print(f"state={st['state']} index_rev={st['index_rev']} next_run={st['next_run']} db_bytes={st['db_bytes']}",
              markup=False)
    _print_env(d["env"])


@app.command()
def demo(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for the generated sources and the warehouse.")] = Path(
        "demo"),
    sessions: Annotated[int, typer.Option(min=1)] = 24,
    seed: Annotated[int, typer.Option()] = 7,
    as_json: JsonOpt = False,
) -> None:
    """Generate realistic data (unless present), index it, run the UJ-1 … UJ-5 scenarios (UJ-3: a dispatch)."""
    with _errors(as_json):
        with _progress(not as_json) as tick:
            doc = Warehouse.demo(out_dir, sessions=sessions, seed=seed, progress=tick, log=_log(as_json))
        _emit(as_json, doc, _print_demo)


# -- eval / bench (golden set, benchmarks) ----------------------------------------------------
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
    semantic: Annotated[str, typer.Option(
        "--semantic", help="off | on | both | auto (both when the [semantic] extra is installed).")] = "auto",
    as_json: JsonOpt = False,
) -> None:
    """Run the golden set on generated data; recall@k, MRR, nDCG, zero-result, false hits; gate on thresholds."""
    from warehouse.evaluation.render import print_eval

    with _errors(as_json):
        report = Warehouse.eval(golden, generate, sessions=sessions, seed=seed, out_dir=out_dir,
                                min_recall3=min_recall3, min_mrr=min_mrr, max_zero=max_zero,
                                max_false_hit=max_false_hit, log=_log(as_json), semantic=semantic)
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
    team: Annotated[bool, typer.Option("--team", help="Also the team lake: push and build-from-snapshot.")] = False,
    catalog: Annotated[str | None, typer.Option(help="--team: DSN of a scratch PostgreSQL database (default "
                                                     "$AKW_LAKE__CATALOG, else a throwaway local cluster).")] = None,
    only: Annotated[str | None, typer.Option(help="team: only one local cold build and the team phases.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Cold/no-op/one-change build times, search latency per mode, peak RSS, size, SQLite FTS5 baseline."""
    from warehouse.bench.render import print_bench

    with _errors(as_json):
        team = team or only == "team"
        dsn = (catalog or os.environ.get("AKW_LAKE__CATALOG")) if team else None
        report = Warehouse.bench(scale, out_dir, work, log=_log(as_json), team_catalog=dsn, team=team, only=only)
        _emit(as_json, report, lambda d: print_bench(out, d))


# -- mcp --------------------------------------------------------------------------------------
@app.command("mcp")
@home_options
def mcp_cmd(ctx: typer.Context) -> None:
    """Serve the nine knowledge_* tools over MCP stdio (docs/mcp.md); needs the [mcp] extra."""
    try:
        from warehouse.mcp.server import main as serve
    except ImportError:
        _fail(False, {"code": Code.INVALID_REQUEST.value,
                      "message": "the MCP server needs the [mcp] extra: pip install 'agent-knowledge-warehouse[mcp]'"})
    serve(_wh(ctx).paths)


def _print_quality(d: dict[str, Any]) -> None:
    st = d["statistics"]
    verdict = "passed" if d["success"] else "FAILED"
    out.print(f"data quality {verdict}: {st['successful']}/{st['evaluated']} expectations hold "
              f"(index_rev {d.get('index_rev') or '-'})", markup=False, highlight=False)
    for r in d["results"]:
        if not r["success"]:
            out.print(f"  ✗ {r['check']}: {r['unexpected_count']} of {r['element_count']} rows "
                      f"(e.g. {_text(r['examples'])})", markup=False, highlight=False)
    if d.get("report"):
        out.print(f"validation result: {d['report']}", markup=False, highlight=False)


@app.command()
@home_options
def quality(
    ctx: typer.Context,
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for quality-<index_rev>.json.")] = Path("reports"),
    as_json: JsonOpt = False,
) -> None:
    """Data-quality suite (great-expectations) over the marts; exits 1 when any expectation fails."""
    with _errors(as_json):
        doc = _wh(ctx).quality(out_dir, log=_log(as_json))
        _emit(as_json, doc, _print_quality)
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
    with _errors(as_json):
        doc = _wh(ctx).report(out_dir, reports_dir)
        _emit(as_json, doc, lambda d: out.print(
            f"report ({d['state']}, index_rev {d['index_rev'] or '-'}): {d['files']['html']} {d['files']['markdown']}",
            markup=False, highlight=False))


def main() -> None:  # pragma: no cover
    app(prog_name="akw")
