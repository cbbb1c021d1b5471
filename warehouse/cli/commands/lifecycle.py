"""Remove or switch off what is indexed: `akw forget`, `akw index delete`, `akw disable`, `akw enable`."""

from __future__ import annotations

from typing import Annotated

import typer

from warehouse.cli.app import JsonOpt, app, emit, errors, index_app, wh
from warehouse.cli.render import print_lines, print_onoff
from warehouse.core.errors import Code, KnowledgeError


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
    with errors(as_json):
        if ident is None and kind != "all":
            raise KnowledgeError(Code.INVALID_REQUEST, "ID: required unless KIND is all", field="id")
        emit(as_json, wh(ctx).forget(kind, ident or "all", confirm=yes), print_lines)


@index_app.command("delete")
def index_delete(
    ctx: typer.Context,
    yes: Annotated[bool, typer.Option("--yes", help="Really delete (without it: a dry run that only counts).")]
    = False,
    as_json: JsonOpt = False,
) -> None:
    """Delete the derived index (generations, lake, state); settings, tombstones and the outbox stay."""
    with errors(as_json):
        emit(as_json, wh(ctx).delete_index(confirm=yes), print_lines)


@app.command()
def disable(
    ctx: typer.Context,
    keep_index: Annotated[bool, typer.Option("--keep-index/--delete-index",
                                             help="Keep the index for a rebuild-free enable, or delete it.")] = True,
    as_json: JsonOpt = False,
) -> None:
    """Turn agent-knowledge off: indexing stops, reads answer KNOWLEDGE_DISABLED, status says why."""
    with errors(as_json):
        emit(as_json, wh(ctx).disable(keep_index=keep_index), print_onoff)


@app.command()
def enable(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Turn agent-knowledge back on (a kept index answers at once)."""
    with errors(as_json):
        emit(as_json, wh(ctx).enable(), print_onoff)
