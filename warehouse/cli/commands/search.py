"""Read the index: `akw search`, `akw get`, `akw sql`, and `akw feedback` on what a search returned."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from warehouse.api import search_request
from warehouse.cli.app import DashQueryCommand, JsonOpt, app, emit, errors, home_options, language, read_request, wh
from warehouse.cli.render import print_card, print_feedback, print_search, print_sql
from warehouse.core.errors import Code, KnowledgeError


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
    with errors(as_json):
        if request is not None:
            req: dict[str, Any] | str = read_request(request)
        elif query is None:
            raise KnowledgeError(Code.INVALID_REQUEST, "query: give a QUERY or --request FILE", field="query")
        else:
            req = search_request(query, mode, limit, workspace)
        emit(as_json, wh(ctx).search(req), lambda d: print_search(d, language(ctx, d["query"])))


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
    with errors(as_json):
        emit(as_json, wh(ctx).get(kind, ident, task=task, source=source, max_chars=max_chars),
             lambda d: print_card(d, language(ctx, task)))


@app.command("sql", cls=DashQueryCommand)
@home_options
def sql_cmd(ctx: typer.Context, query: Annotated[str, typer.Argument(help="One read-only SQL query.")],
            limit: Annotated[int, typer.Option(min=1, max=100000)] = 1000, as_json: JsonOpt = False) -> None:
    """Query the published generation read-only (any DuckDB client can open it too)."""
    with errors(as_json):
        emit(as_json, wh(ctx).sql(query, limit=limit), print_sql)


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
    with errors(as_json):
        if useful is None:
            raise KnowledgeError(Code.INVALID_REQUEST, "give --useful or --not-useful", field="useful")
        emit(as_json, wh(ctx).feedback(result_id, useful, request_id=request_id, chosen=chosen),
             lambda d: print_feedback(d, language(ctx)))
