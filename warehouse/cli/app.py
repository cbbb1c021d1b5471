"""The `akw` Typer app and what every command shares: where the home is, argv handling, the JSON error contract.

With `--json` a command prints exactly one JSON document on stdout and diagnostics on stderr; every
failure, option-parsing errors included, exits non-zero with `{"errors":[{"code":"KNOWLEDGE_…","message":…}]}`.
Kept apart from the commands (which import it) so the contract lives in one place and nothing here knows them.
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
from typer.core import TyperCommand, TyperGroup

try:  # Typer >= 0.29 carries its own copy of click
    from typer._click import exceptions as click_errors
except ImportError:  # older Typer runs on click itself
    from click import exceptions as click_errors  # type: ignore[no-redef]

from warehouse import __version__
from warehouse.api import Warehouse
from warehouse.core.errors import MAX_REQUEST_BYTES, Code, KnowledgeError, request_too_large
from warehouse.core.language import Lang, output_language
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
            self._wh.surface = "cli"  # the usage metrics' surface (content-free counts, FR-9)
        return self._wh

    def close(self) -> None:
        """The command is done: close what it opened (in-process runs of the app leave nothing open)."""
        if self._wh is not None:
            self._wh.close()


def wh(ctx: typer.Context) -> Warehouse:
    """The command's warehouse, opened on first use."""
    return ctx.ensure_object(CliState).warehouse


def language(ctx: typer.Context, *typed: str | None) -> Lang:
    """The language of a command's text output (core/language): `ui.language`, else the text the person
    typed (a query, a task), else the locale. A search decides it the same way, so its labels and texts agree."""
    return output_language(wh(ctx).settings.ui.language, " ".join(t for t in typed if t) or None)


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


def read_request(source: str) -> str:
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


# -- the app and its groups (`akw --help` lists the groups in this order, after the commands) -------
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
    ctx.call_on_close(ctx.obj.close)


# -- output and failures ------------------------------------------------------------------------
def emit(as_json: bool, doc: dict[str, Any], human: Callable[[dict[str, Any]], None]) -> None:
    """The command's one document: JSON on stdout with `--json`, else the human renderer."""
    if as_json:
        sys.stdout.write(json.dumps(doc, ensure_ascii=False, sort_keys=True, default=str) + "\n")
    else:
        human(doc)


@contextmanager
def errors(as_json: bool) -> Iterator[None]:
    """Map every failure to a stable code and a non-zero exit; never print indexed text or secrets."""
    try:
        yield
    except KnowledgeError as e:
        fail(as_json, e.to_dict())
    except typer.Exit:
        raise
    except BrokenPipeError:
        _mute_stdout()
        raise typer.Exit(0) from None
    except PermissionError as e:  # a folder or file the user pointed at and may not touch
        fail(as_json, {"code": Code.INVALID_REQUEST.value, "message": f"permission denied: {e.filename}"})
    except Exception as e:
        fail(as_json, {"code": Code.INTERNAL.value, "message": redact(f"{type(e).__name__}: {e}")})


def fail(as_json: bool, error: dict[str, Any]) -> NoReturn:
    """Report one error (as the contract's document with `--json`) and exit 2."""
    _print_error(as_json, error)
    raise typer.Exit(code=2)


def log(as_json: bool) -> Callable[[str], None] | None:
    """A line logger on stderr for human runs; None (silence) with `--json`."""
    return None if as_json else lambda m: err.print(m, markup=False, highlight=False)


@contextmanager
def progress(enabled: bool) -> Iterator[Tick | None]:
    """Progress bars on stderr: a `tick(description, advance, total)` callback, or None when disabled."""
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
