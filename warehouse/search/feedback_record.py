"""`knowledge_feedback` (FR-9): check that the ids name rows of the served index — and, under access
control, rows the caller sees — then append the verdict to the feedback log (warehouse/home/feedback.py).

An id the principal may not see is answered exactly as one the index does not hold
(`KNOWLEDGE_NOT_FOUND`, the same words): feedback never confirms that another's item exists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.literals import text
from warehouse.core.paths import Paths
from warehouse.core.sqlfiles import render
from warehouse.home import feedback
from warehouse.search.access import Scope, sees_id, view_on

if TYPE_CHECKING:
    from warehouse.search.service import SearchEngine


def record(paths: Paths, engine: SearchEngine, result_id: str, useful: bool, request_id: str | None = None,
           chosen: str | None = None, scope: Scope | None = None) -> dict[str, Any]:
    """Validate, check every id against the index (and the scope), append, and answer the new tally."""
    kind = feedback.kind_of(result_id)
    request_id = feedback.check_request_id(request_id)
    if chosen is not None and feedback.kind_of(chosen) not in ("actor", "skill"):
        raise KnowledgeError(Code.INVALID_REQUEST, "chosen: an actor or skill id", field="chosen")
    cur, gen = engine.reader()
    try:
        view = view_on(cur, scope) if scope is not None else None
        for field, ident in (("result_id", result_id), ("chosen", chosen)):
            if ident is None:
                continue
            held = cur.execute(render("feedback_target", id=text(ident))).fetchone() is not None
            if not held or (view is not None and not sees_id(cur, view, feedback.kind_of(ident), ident)):
                raise KnowledgeError(Code.NOT_FOUND, f"{field}: no such {feedback.kind_of(ident)} in the index",
                                     field=field, index_rev=gen.index_rev)
    finally:
        cur.close()
    entry = feedback.append(paths, result_id, useful, request_id, chosen)
    engine.feedback_changed()
    records = feedback.read_all(paths)
    useful_n, not_useful_n = feedback.votes(records).get(result_id, (0, 0))
    score = feedback.scores(records).get(result_id, 0.0)
    return {"recorded": True, "feedback_id": entry["feedback_id"], "result_id": result_id, "kind": kind,
            "useful": entry["useful"], "request_id": request_id, "chosen": chosen, "at": entry["at"],
            "votes": {"useful": useful_n, "not_useful": not_useful_n},
            "boost": round(1 + feedback.FEEDBACK_BOOST * score, 6), "index_rev": gen.index_rev}
