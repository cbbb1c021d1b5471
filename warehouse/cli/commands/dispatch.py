"""knowledge_dispatch v1: `akw dispatch --request` plans (or, confirmed, records) a hand-over; list/show the outbox."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from warehouse.api import os_user
from warehouse.cli.app import JsonOpt, dispatch_app, emit, errors, home_options, language, read_request, wh
from warehouse.cli.render import print_dispatch, print_handoff, print_outbox
from warehouse.core.errors import Code, KnowledgeError


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
    with errors(as_json):
        if request is None:
            raise KnowledgeError(Code.INVALID_REQUEST, "request: give --request FILE (- = stdin), or list | show ID",
                                 field="request")
        text = read_request(request)
        if yes:
            text = _confirmed(text)
        doc = wh(ctx).dispatch(text, requested_by=f"cli:{os_user()}")
        emit(as_json, doc, lambda d: print_dispatch(d, lang=language(ctx, d["context_pack"].get("goal"))))
    if doc["errors"]:
        raise typer.Exit(code=1)


def _confirmed(text: str) -> str:
    """The request with `confirm: true`. `--yes` confirms a commit, so a request that is still a plan
    (`dry_run` true or left out, or no `commit: true`) is refused rather than silently run as a dry run."""
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):  # the API answers it with its coded error
        return text
    if not isinstance(doc, dict):
        return text
    if doc.get("dry_run", True) is not False or doc.get("commit") is not True:
        said = f"dry_run: {json.dumps(doc.get('dry_run', True))}, commit: {json.dumps(doc.get('commit', False))}"
        raise KnowledgeError(Code.INVALID_REQUEST,
                             f"--yes confirms a commit, but this request is a plan only ({said}); to record it set "
                             '"dry_run": false and "commit": true in the request, or drop --yes for a dry run',
                             field="dry_run")
    return json.dumps({**doc, "confirm": True}, ensure_ascii=False)


@dispatch_app.command("list")
@home_options
def dispatch_list(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """The recorded dispatches in the outbox, oldest first."""
    with errors(as_json):
        emit(as_json, wh(ctx).dispatch_list(), print_outbox)


@dispatch_app.command("show")
@home_options
def dispatch_show(ctx: typer.Context, ident: Annotated[str, typer.Argument(help="assignment id or dispatch id")],
                  as_json: JsonOpt = False) -> None:
    """One recorded dispatch: its assignment row and its knowledge.handoff/v1 package."""
    with errors(as_json):
        emit(as_json, wh(ctx).dispatch_show(ident), lambda d: print_handoff(d, lang=language(
            ctx, d["handoff"]["task"].get("title"), d["handoff"]["task"].get("text"))))
