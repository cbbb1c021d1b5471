"""The shared team lake (ADR 0013): `akw team init | push | status`."""

from __future__ import annotations

from typing import Annotated

import typer

from warehouse.cli.app import JsonOpt, emit, errors, home_options, out, progress, team_app, wh
from warehouse.cli.render import print_extract, print_team, text


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
    with errors(as_json):
        emit(as_json, wh(ctx).team_init(catalog, data_path, writer_id), print_team)


@team_app.command("push")
@home_options
def team_push(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Extract what changed and commit it to the team lake, one transaction per unit batch (no build)."""
    with errors(as_json):
        with progress(not as_json) as tick:
            doc = wh(ctx).team_push(progress=tick)
        emit(as_json, doc, lambda d: (print_extract(d), out.print(text(d.get("push")), markup=False)))


@team_app.command("status")
@home_options
def team_status(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Writers, their last commit, snapshot ids and this machine's lag; `degraded` when the catalog is away."""
    with errors(as_json):
        emit(as_json, wh(ctx).team_status(), print_team)
