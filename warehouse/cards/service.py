"""One entry for every card kind: open the published generation read-only, resolve the id, build the card."""

from __future__ import annotations

from typing import Any

import duckdb

from warehouse.cards.agent import agent_card
from warehouse.cards.code import code_card
from warehouse.cards.contract import KINDS, card_dict
from warehouse.cards.episode import episode_card
from warehouse.cards.lookup import Budget, check_max_chars, not_found, published
from warehouse.cards.skill import skill_card
from warehouse.cards.texts import Lang
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.paths import Paths
from warehouse.core.settings import Settings
from warehouse.search.access import Scope, invisible, view_on

# what each card says of an id it does not hold; a card the principal may not see says the same
UNKNOWN_HINTS = {
    "agent": "ids are ak_actor.actor_id (search: actors[].actor_id)",
    "code": "ids are code item ids (ak_document.doc_key of the code lane)",
    "skill": "give a skill name or ak_skill.skill_id (search: skills items)",
    "episode": "ids are ak_episode.episode_id or a search item/evidence id (ak_document.doc_key)",
}


def _arg(value: str | None, field: str, required: bool = False) -> str | None:
    if value is None:
        if required:
            raise KnowledgeError(Code.INVALID_REQUEST, f"{field}: required", field=field)
        return None
    if not isinstance(value, str) or "\x00" in value or not value.strip() or len(value) > 2000:
        raise KnowledgeError(Code.INVALID_REQUEST, f"{field}: a non-empty text of at most 2000 characters",
                             field=field)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (undecodable bytes) cannot be a key of anything
        raise KnowledgeError(Code.INVALID_REQUEST, f"{field}: text is not valid Unicode (a lone surrogate)",
                             field=field) from None
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
             source: str | None = None, max_chars: int | None = None, scope: Scope | None = None,
             lang: Lang = "en") -> dict[str, Any]:
    """`scope` (access on): a card naming any actor, episode, session, skill or chunk the principal does
    not see is `KNOWLEDGE_NOT_FOUND`, worded exactly as for an id the index does not hold. `lang`: the
    language of the card's own texts (cards/texts.py), decided once by the caller; ids' errors stay English."""
    if kind not in KINDS:
        raise KnowledgeError(Code.INVALID_REQUEST, f"kind: one of {', '.join(KINDS)}", field="kind")
    ident = _arg(ident, "id", required=True) or ""
    task, source = _arg(task, "task"), _arg(source, "source")
    budget = Budget(check_max_chars(max_chars), _rest_command(kind, ident, source, task),
                    redact_text=settings.redact_secrets, redact_pii=settings.redact_pii, lang=lang)
    with published(paths.generations) as (con, rev):
        try:
            doc = card_dict(_build(con, rev, paths, settings, kind, ident, task, source, budget, lang))
            if scope is not None:
                view = view_on(con, scope)
                if invisible(doc, view) or (kind == "code" and doc["id"] not in view.chunks):
                    raise not_found(kind, ident, rev)
                if kind == "code":  # a neighbour in the same file is the same right's; held to it all the same
                    doc["neighbours"] = [n for n in doc["neighbours"] if n["id"] in view.chunks]
        except KnowledgeError as e:
            if scope is None or e.code != Code.NOT_FOUND.value:
                raise
            # one wording for "not held" and "not yours", naming nothing (a skill's other sources neither)
            raise not_found(kind, ident, rev, UNKNOWN_HINTS[kind]) from None
    return doc


def _build(con: duckdb.DuckDBPyConnection, rev: str, paths: Paths, settings: Settings, kind: str, ident: str,
           task: str | None, source: str | None, budget: Budget, lang: Lang = "en") -> Any:
    if kind == "agent":
        return agent_card(con, rev, settings, ident, task, budget, lang)
    if kind == "skill":
        return skill_card(con, rev, ident, source, task, budget, lang)
    if kind == "episode":
        return episode_card(con, rev, paths, settings, ident, budget, lang)
    return code_card(con, rev, ident, budget)
