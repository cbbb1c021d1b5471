"""When reindex runs: `akw schedule show | run-due | install` and the foreground `akw daemon`."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from warehouse.api import Warehouse
from warehouse.cli.app import CliState, JsonOpt, app, emit, errors, home_options, language, out, schedule_app, wh
from warehouse.cli.render import print_schedule
from warehouse.core.errors import Code, KnowledgeError

NowOpt = Annotated[str | None, typer.Option("--now", help="Pretend it is this ISO time (what-if, tests).")]


def _now(value: str | None) -> Any:
    if value is None:
        return None
    from warehouse.home.schedule import parse_ts

    at = parse_ts(value)
    if at is None:
        raise KnowledgeError(Code.INVALID_REQUEST, "now: an ISO time, e.g. 2030-03-31T03:05:00+02:00", field="now")
    return at


@schedule_app.command("show")
@home_options
def schedule_show(ctx: typer.Context, now: NowOpt = None, as_json: JsonOpt = False) -> None:
    """The next runs, the last run and what is due now."""
    with errors(as_json):
        emit(as_json, wh(ctx).schedule_show(now=_now(now)), lambda d: print_schedule(d, language(ctx)))


@schedule_app.command("run-due")
@home_options
def schedule_run_due(ctx: typer.Context, now: NowOpt = None, as_json: JsonOpt = False) -> None:
    """Run the due job once and exit (for cron / systemd timers); nothing due is a success too."""
    with errors(as_json):
        doc = wh(ctx).schedule_run_due(now=_now(now))
        emit(as_json, doc, lambda d: out.print(f"{'ran' if d['ran'] else 'nothing run'}: {d['reason']}"
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
    with errors(as_json):
        if not print_only:
            raise KnowledgeError(Code.INVALID_REQUEST, "install only prints (akw schedule install --print); "
                                 "place the texts yourself", field="print")
        doc = wh(ctx).schedule_install()

        def human(d: dict[str, Any]) -> None:  # plain writes: a wrapped crontab line would be a broken one
            sys.stdout.write(f"# crontab -e\n{d['crontab']}\n\n")
            for name, text in d["systemd"].items():
                sys.stdout.write(f"# ~/.config/systemd/user/{name}\n{text}\n")
            sys.stdout.write("".join(f"# {step}\n" for step in d["steps"]))

        emit(as_json, doc, human)


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

    with errors(as_json):
        code = run_daemon(lambda: Warehouse.open(state.dsh_home, state.autoclaw_root, state.home), log, tick_s=tick)
        if as_json:
            emit(True, {"stopped": True, "exit_code": code}, lambda d: None)
    raise typer.Exit(code=code)
