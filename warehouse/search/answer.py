"""The response of one search: lane items, actors, every lane's state, warnings and errors (contract §4, §9).

Everything the caller needs to trust or distrust the answer is said here: each lane's backend,
`index_rev` and degradation; a warning for a degraded lane or an included lane with no match
(with what to try); an error when no lane could answer. Nothing is invented: an
empty answer says it is empty. The token budget is applied afterwards, on the whole response.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import duckdb

from warehouse.core.errors import Code
from warehouse.core.settings import Settings
from warehouse.home import generation
from warehouse.search.actors import actor_answers
from warehouse.search.contract import (
    LANES,
    CodeLane,
    EpisodeLane,
    ErrorItem,
    Freshness,
    Fusion,
    Lanes,
    LaneSemantic,
    LaneWarning,
    Limits,
    Routing,
    SearchRequest,
    SearchResponse,
    SkillLane,
)
from warehouse.search.fusion import RRF_K
from warehouse.search.items import lane_items
from warehouse.search.lane_status import LaneState
from warehouse.search.messages import Lang, msg

BACKENDS = {"episodes": "akw.episode-index", "code": "akw.code-index", "skills": "akw.skill-index"}


def assemble(cur: duckdb.DuckDBPyConnection, gen: generation.Generation, req: SearchRequest, routing: Routing,
             weights: dict[str, float], state: dict[str, LaneState], fused: list[tuple], actor_rows: list[tuple],
             terms_by_doc: dict[tuple[str, int], list[str]], nominated: set[int], no_source: bool,
             settings: Settings, vec_by_doc: dict[tuple[str, int], float] | None = None,
             semantic: dict[str, LaneSemantic] | None = None,
             unknown_workspaces: Sequence[str] = (), known_workspaces: Sequence[str] = (),
             details: Mapping[int, dict[str, Any]] | None = None,
             passages: Mapping[tuple[str, int], int] | None = None, lang: Lang = "en") -> SearchResponse:
    """The whole response before the budget, its texts in `lang`; `cur` is the plain cursor (item details);
    `nominated`: the episode documents actor profiles nominated (fusion.nominate).

    `vec_by_doc` / `semantic` only with semantic.enabled: each item's similarity and each lane's vector state.
    `unknown_workspaces`: workspace filter values that name no workspace (`known_workspaces`: a hint).
    `details`: the items' rows (items.read_details), when the search read them beside the actor statement.
    `passages`: (lane, doc_id) -> the offset of the passage that matched by meaning (the item's snippet)."""
    names = {row[0]: row[3] for row in actor_rows}  # every actor of the fused episodes (actors.sql)
    items = lane_items(cur, req, fused, terms_by_doc, nominated, names, vec_by_doc, details, passages, lang)
    sem = semantic or {}
    profiled = {actor for lane, doc_id, *_, actor in fused if lane == "episodes" and doc_id in nominated}
    actors = actor_answers(req, actor_rows, items["episodes"], profiled, settings.dispatch, lang)
    warnings, errors = _notices(req, state, items, no_source, lang)
    warnings[:0] = [LaneWarning(code=Code.UNKNOWN_WORKSPACE.value, lane="all",
                            message=msg("filter.unknown_workspace", lang, workspace=name,
                                        known=", ".join(known_workspaces) or msg("none", lang)))
                    for name in unknown_workspaces]
    ep, co, sk = state["episodes"], state["code"], state.get("skills")
    lanes = Lanes(
        episodes=EpisodeLane(backend=BACKENDS["episodes"], index_rev=ep["rev"], observed_at=gen.published_at,
                             degraded=ep["degraded"], degradation_reason=ep["reason"],
                             counts={"indexed_docs": ep["docs"]}, semantic=sem.get("episodes"),
                             items=items["episodes"]),
        code=CodeLane(backend=BACKENDS["code"], index_rev=co["rev"],
                      capability="degraded" if co["unavailable"] else ("partial" if co["degraded"] else "full"),
                      freshness=Freshness(stale=False, verified_by="content-hash"),
                      degraded=co["degraded"], degradation_reason=co["reason"], semantic=sem.get("code"),
                      items=items["code"]),
        skills=SkillLane(backend=BACKENDS["skills"], index_rev=sk["rev"], degraded=sk["degraded"],
                         degradation_reason=sk["reason"], semantic=sem.get("skills"),
                         items=items["skills"]) if "skills" in req.include
        and sk is not None else None,
    )
    returned = sum(len(v) for v in items.values())
    return SearchResponse(
        request_id=req.request_id, query=req.query, found=returned > 0, routing=routing, lanes=lanes,
        actors=actors, fusion=Fusion(k=RRF_K, weights=weights, dedup="by id within a lane"),
        limits=Limits(requested=req.limit, returned=returned), warnings=warnings, errors=errors)


def _notices(req: SearchRequest, state: dict[str, LaneState], items: dict[str, list[Any]],
             no_source: bool, lang: Lang) -> tuple[list[LaneWarning], list[ErrorItem]]:
    """A warning per degraded lane and per included lane without a match; an error when no source answers."""
    warnings: list[LaneWarning] = []
    errors: list[ErrorItem] = []
    for lane in LANES:
        st = state.get(lane)
        if st is None:
            continue
        if st["degraded"]:
            warnings.append(LaneWarning(code=st["code"], lane=lane, message=st["reason"]))
        elif lane in req.include and not items[lane] and not no_source:
            warnings.append(LaneWarning(code="KNOWLEDGE_NO_MATCH", lane=lane, message=msg("lane.no_match", lang)))
    if no_source:
        reasons = "; ".join(st["reason"] for ln, st in state.items() if st["reason"] and ln in LANES)
        errors.append(ErrorItem(code=Code.NO_SOURCE.value, message=msg("search.no_source", lang, reasons=reasons),
                                retryable=True))
    return warnings, errors
