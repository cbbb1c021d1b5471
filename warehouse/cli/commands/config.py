"""Settings (the agent-knowledge section): `akw config show | set`."""

from __future__ import annotations

from typing import Annotated

import typer

from warehouse.cli.app import JsonOpt, config_app, emit, errors, home_options, out, wh
from warehouse.cli.render import print_settings


@config_app.command("show")
@home_options
def config_show(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Print the effective settings (file + environment overrides)."""
    with errors(as_json):
        emit(as_json, wh(ctx).config_show(), print_settings)


@config_app.command("set")
@home_options
def config_set(
    ctx: typer.Context,
    assignments: Annotated[list[str], typer.Argument(help="key=value pairs, e.g. schedule.times='[\"04:00\"]'")],
    as_json: JsonOpt = False,
) -> None:
    """Validate and save settings; a bad key or value is named and nothing is written."""
    with errors(as_json):
        doc = wh(ctx).config_set(assignments)
        emit(as_json, doc, lambda d: [out.print(line, markup=False, highlight=False) for line in
                                      [f"saved {d['config_file']}", *(n["message"] for n in d.get("notes", []))]])
