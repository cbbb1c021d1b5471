"""Build and inspect the index: `akw reindex`, `akw status`, `akw sources`."""

from __future__ import annotations

from typing import Annotated

import typer

from warehouse.cli.app import JsonOpt, app, emit, errors, home_options, language, progress, wh
from warehouse.cli.render import print_reindex, print_sources, print_status
from warehouse.core.errors import Code, KnowledgeError


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
    with errors(as_json):
        w = wh(ctx)
        try:
            with progress(not as_json) as tick:
                doc = w.reindex(mode=mode, progress=tick, wait_s=wait, snapshot=snapshot)
        except KeyboardInterrupt:
            raise KnowledgeError(Code.INTERNAL, "cancelled; the published generation is unchanged",
                                 cancelled=True) from None
        emit(as_json, doc, lambda d: print_reindex(d, language(ctx)))


@app.command()
@home_options
def status(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """knowledge_status: state, index_rev, last/next run, counts, coverage, errors."""
    with errors(as_json):
        emit(as_json, wh(ctx).status(), lambda d: print_status(d, language(ctx)))


@app.command()
@home_options
def sources(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Show the state of every source unit (revision, status, error code)."""
    with errors(as_json):
        emit(as_json, wh(ctx).sources(), lambda d: print_sources(d, language(ctx)))
