"""One entry for every card kind: open the published generation read-only, resolve the id, build the card."""

from __future__ import annotations

from typing import Any

from warehouse.cards.agent import agent_card
from warehouse.cards.code import code_card
from warehouse.cards.contract import KINDS, card_dict
from warehouse.cards.episode import episode_card
from warehouse.cards.lookup import Budget, check_max_chars, not_found, published
from warehouse.cards.skill import skill_card
from warehouse.errors import Code, KnowledgeError
from warehouse.paths import Paths
from warehouse.search.access import Scope, invisible, view_on
from warehouse.settings import Settings


def _arg(value: str | None, field: str, required: bool = False) -> str | None:
    if value is None:
        if required:
            raise KnowledgeError(Code.INVALID_REQUEST, f"{field}: required", field=field)
        return None
    if not isinstance(value, str) or "\x00" in value or not value.strip() or len(value) > 2000:
        raise KnowledgeError(Code.INVALID_REQUEST, f"{field}: a non-empty text of at most 2000 characters",
                             field=field)
    return value.strip()


def _rest_command(kind: str, ident: str, source: str | None, task: str | None) -> str:
    def q(v: str) -> str:
        return "'" + v.replace("'", "'\\''") + "'"

    cmd = f"akw get {kind} {q(ident)}"
    if source:
        cmd += f" --source {q(source)}"
    if task:
        cmd += " --task …"
    return cmd


def get_card(paths: Paths, settings: Settings, kind: str, ident: str, task: str | None = None,
             source: str | None = None, max_chars: int | None = None, scope: Scope | None = None) -> dict[str, Any]:
    """`scope` (access on): a card naming any actor, episode, session, skill or chunk the principal does
    not see is `KNOWLEDGE_NOT_FOUND`, worded exactly as for an id the index does not hold."""
    if kind not in KINDS:
        raise KnowledgeError(Code.INVALID_REQUEST, f"kind: one of {', '.join(KINDS)}", field="kind")
    ident = _arg(ident, "id", required=True) or ""
    task, source = _arg(task, "task"), _arg(source, "source")
    budget = Budget(check_max_chars(max_chars), _rest_command(kind, ident, source, task),
                    redact_text=settings.redact_secrets)
    with published(paths.generations) as (con, rev):
        if kind == "agent":
            card = agent_card(con, rev, settings, ident, task, budget)
        elif kind == "skill":
            card = skill_card(con, rev, ident, source, task, budget)
        elif kind == "episode":
            card = episode_card(con, rev, paths, settings, ident, budget)
        else:
            card = code_card(con, rev, ident, budget)
        doc = card_dict(card)
        if scope is not None and invisible(doc, view_on(con, scope)):
            raise not_found(kind, ident, rev)
    return doc
