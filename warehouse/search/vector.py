"""The semantic side of the lanes (FR-5.1, opt-in): embed the query once, scan each lane's unit vectors.

Only with `semantic.enabled`; off, nothing here runs and every answer is what the lexical lanes
alone give. The query is embedded once per search by the process's one model (warehouse/core/embed.py,
~5 ms); each queried lane's units are scanned brute force: in memory as int8 (vector_matrix.py, read at a
process's first vector scan), else by one statement over `akw_vec` with the query as a FLOAT[512] literal
(the lane's request filters applied first either way, as in the lexical lane). The hits are fused with
the lexical ones inside each lane (`sql/queries/search/fuse_semantic.sql`).

Every lane says whether the vector side answered (`LaneSemantic.state`): `answered`, `no_vectors`
(the generation holds none for the lane: built with semantic off, or the lane has no units),
`unavailable` (the model package is missing), `failed` / `timed_out` (the lexical side still
answers). A lane that could not use its vectors also gets a KNOWLEDGE_SEMANTIC_UNAVAILABLE warning.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import NamedTuple

import duckdb

from warehouse.core import embed
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.sqlfiles import render
from warehouse.search.contract import LANES, LaneSemantic, LaneWarning, SearchRequest
from warehouse.search.filters import lane_predicate
from warehouse.search.lane_runner import K_LANE, LANE_TIMEOUT_S, Hit
from warehouse.search.lane_status import ACTOR_LANE, LaneState
from warehouse.search.messages import Lang, msg
from warehouse.search.vector_matrix import LaneVectors, VectorMatrix
from warehouse.search.watchdog import Watchdog
from warehouse.search.workspaces import Resolved

log = logging.getLogger("akw.search")

# The similarity gates, calibrated on the real transcripts (issue 24: golden/transcripts.yaml, `split: calibrate`,
# passage units): recall@3 is flat for VEC_MIN 0.33-0.38 with VEC_MIN_BEST 0.33-0.42 and falls from 0.40 on
# (0.925 -> 0.906 at 0.40/0.42, 0.868 at 0.40/0.45); the synthetic set's absent topics reach <= 0.33.
VEC_MIN = 0.40  # cosine similarity an item needs to be an answer by meaning alone
VEC_MIN_BEST = 0.42  # ... and the best item of the search: below it the vector side has no answer (FR-5.7)
# akw_vec.lane_no: the contract's lanes, then the internal actors lane (profiles: name, description,
# instructions). A profile never is an item: its hit nominates the actor's representative episode.
VEC_LANES = (*LANES, ACTOR_LANE)
NOMINATED = 3  # actor profiles whose vector hit may nominate their episode (as fusion.NOMINATED)


class VectorRun(NamedTuple):
    hits: dict[str, list[tuple[int, float]]]  # lane -> (doc_id, similarity of its best unit), best first
    state: dict[str, LaneSemantic]
    warnings: list[LaneWarning]
    passages: dict[tuple[str, int], int]  # (lane, doc_id) -> offset of its best unit (absent: the head)


def read_vec_info(con: duckdb.DuckDBPyConnection) -> dict[str, int] | None:
    """Unit vectors per lane of the open generation; None when it has no vector table at all."""
    try:
        rows = con.execute("SELECT lane_no, count(*) FROM akw_vec GROUP BY lane_no").fetchall()
    except duckdb.CatalogException:
        return None
    return {VEC_LANES[int(n)]: int(c) for n, c in rows}


def run_vectors(cur: duckdb.DuckDBPyConnection, req: SearchRequest, lane_state: Mapping[str, LaneState],
                vec_info: dict[str, int] | None, watchdog: Watchdog, ws: Resolved, allow: str = "",
                profiles: bool = False, lang: Lang = "en", matrix: VectorMatrix | None = None) -> VectorRun:
    """The vector hits of every included, answering lane, and what each lane's vector side did (in `lang`)
    (`allow`: the principal's pre-filter, access.View.allow_clause). `profiles` (the query names a
    kind of actor, lane_runner.profiles_apply): the actor profiles are scanned too, beside the
    episodes lane; their hits stay under ACTOR_LANE for `nominate_profiles`. `matrix`: the generation's
    vectors in memory (vector_matrix.py), scanned instead of the SQL statement when it holds them."""
    state: dict[str, LaneSemantic] = {}
    model = embed.MODEL
    lanes = [ln for ln in LANES if ln in lane_state and ln in req.include and not lane_state[ln]["unavailable"]]
    if not embed.installed():
        reason = msg("vec.not_installed", lang, hint=embed.INSTALL_HINT)
        return VectorRun({}, {ln: LaneSemantic(state="unavailable", model=model, reason=reason) for ln in lanes},
                         [LaneWarning(code=Code.SEMANTIC_UNAVAILABLE.value, lane=ln, message=reason) for ln in lanes],
                         {})
    queried = [ln for ln in lanes if (vec_info or {}).get(ln)]
    for ln in lanes:
        if ln not in queried:
            reason = msg("vec.no_vectors" if vec_info is not None else "vec.not_built", lang, lane=ln)
            state[ln] = LaneSemantic(state="no_vectors", model=model, reason=reason)
    hits: dict[str, list[tuple[int, float]]] = {}
    positions: dict[tuple[str, int], int] = {}
    if queried:
        scanned = [*queried, ACTOR_LANE] if profiles and "episodes" in queried and (vec_info or {}).get(
            ACTOR_LANE) else queried
        try:
            lanes_in_memory = matrix.lanes(cur) if matrix is not None else None
            hits, positions = _scan(cur, req, scanned, watchdog, ws, allow) if lanes_in_memory is None else \
                _scan_in_memory(cur, req, scanned, ws, allow, lanes_in_memory)
            for ln in queried:
                state[ln] = LaneSemantic(state="answered", model=model, hits=len(hits.get(ln, [])))
        except duckdb.InterruptException:
            for ln in queried:
                state[ln] = LaneSemantic(state="timed_out", model=model,
                                         reason=msg("lane.timed_out", lang, ms=int(LANE_TIMEOUT_S * 1000)))
        except (duckdb.BinderException, duckdb.CatalogException):
            raise
        except (duckdb.Error, KnowledgeError, ValueError) as e:
            log.warning("search request_id=%s vector side failed: %s", req.request_id, type(e).__name__)
            for ln in queried:
                state[ln] = LaneSemantic(state="failed", model=model,
                                         reason=msg("lane.query_failed", lang, error=type(e).__name__))
    warnings = [LaneWarning(code=Code.SEMANTIC_UNAVAILABLE.value, lane=ln, message=state[ln].reason or "")
                for ln in lanes if state[ln].state in ("failed", "timed_out", "unavailable")
                or (state[ln].state == "no_vectors" and vec_info is None)]
    return VectorRun(hits, {ln: state[ln] for ln in lanes}, warnings, positions)


def of_answering_lanes(vec: VectorRun, state: Mapping[str, LaneState]) -> VectorRun:
    """The vector side without the lanes whose lexical query failed (it ran beside them, judged by
    the generation and settings alone): a failed lane's answer is void, and it reports that (§9)."""
    void = {ln for ln in vec.state if state.get(ln, {}).get("unavailable")}
    if not void:
        return vec
    return VectorRun({ln: h for ln, h in vec.hits.items() if ln not in void},
                     {ln: st for ln, st in vec.state.items() if ln not in void},
                     [w for w in vec.warnings if w.lane not in void],
                     {k: p for k, p in vec.passages.items() if k[0] not in void})


def _lane_where(lane: str, req: SearchRequest, ws: Resolved, allow: str) -> str:
    """The documents a lane's vector side may answer with: the lexical lane's request filters and the
    principal's pre-filter on `d` (both scans select by it: a filter cannot leak, KC-10); "" for all."""
    return " AND ".join(c for c in (lane_predicate(lane, req.filters, ws), allow) if c)


def _scan(cur: duckdb.DuckDBPyConnection, req: SearchRequest, lanes: list[str], watchdog: Watchdog, ws: Resolved,
          allow: str = "") -> tuple[dict[str, list[tuple[int, float]]], dict[tuple[str, int], int]]:
    qvec = embed.vector_literal(embed.embed(req.query))
    parts = []
    for ln in lanes:
        where = _lane_where(ln, req, ws, allow)
        flt = f"AND v.doc_id IN (SELECT d.doc_id FROM ak_document AS d WHERE {where})" if where else ""
        parts.append(render("vector_lane", lane_no=str(VEC_LANES.index(ln)), k=str(K_LANE), filter=flt))
    sql = render("vector_search", lanes="\nUNION ALL\n".join(parts), qvec=qvec)
    out: dict[str, list[tuple[int, float]]] = {ln: [] for ln in lanes}
    positions: dict[tuple[str, int], int] = {}
    with watchdog.deadline(cur, LANE_TIMEOUT_S):
        rows = cur.execute(sql).fetchall()
    for lane_no, doc_id, sim, pos in sorted(rows, key=lambda r: (r[0], -r[2], r[1])):
        out[VEC_LANES[int(lane_no)]].append((int(doc_id), float(sim)))
        if pos:
            positions[(VEC_LANES[int(lane_no)], int(doc_id))] = int(pos)
    return out, positions


def _scan_in_memory(cur: duckdb.DuckDBPyConnection, req: SearchRequest, lanes: list[str], ws: Resolved, allow: str,
                    matrix: dict[int, LaneVectors]) -> tuple[dict[str, list[tuple[int, float]]],
                                                             dict[tuple[str, int], int]]:
    """`_scan`'s answer from the in-memory int8 vectors: the same lanes, filters (the lane's predicate and
    the principal's pre-filter select the documents first, as in SQL), K per lane and order."""
    import numpy as np

    qvec = np.asarray(embed.embed(req.query), dtype=np.float32)
    out: dict[str, list[tuple[int, float]]] = {}
    positions: dict[tuple[str, int], int] = {}
    for ln in lanes:
        out[ln] = []
        vectors = matrix.get(VEC_LANES.index(ln))
        if vectors is None:
            continue
        where = _lane_where(ln, req, ws, allow)
        allowed = cur.execute(f"SELECT d.doc_id FROM ak_document AS d WHERE {where}").fetchnumpy()["doc_id"] \
            if where else None
        for doc_id, sim, pos in vectors.top(qvec, K_LANE, allowed):
            out[ln].append((doc_id, sim))
            if pos:
                positions[(ln, doc_id)] = pos
    return out, positions


def nominate_profiles(vec: VectorRun, profiles: Mapping[int, int]) -> set[int]:
    """Move the actor profiles' vector hits into the episodes lane: the best `NOMINATED` profiles
    similar enough to be an answer (VEC_MIN) give their representative episode that similarity
    (the higher one if the episode has its own), as fusion.nominate does for a lexical profile
    match. Returns the episodes that now carry a profile's similarity: their `why` names the
    profile, so `vec: …` is not read as the episode's own text matching."""
    found = [(profiles[d], sim) for d, sim in vec.hits.pop(ACTOR_LANE, []) if d in profiles and sim >= VEC_MIN]
    if not found:
        return set()
    episodes = dict(vec.hits.get("episodes", []))
    nominated = set()
    for ref, sim in found[:NOMINATED]:
        if sim > episodes.get(ref, -1.0):  # the episode now carries the profile's similarity
            nominated.add(ref)
            episodes[ref] = sim
    vec.hits["episodes"] = sorted(episodes.items(), key=lambda x: (-x[1], x[0]))
    return nominated


def with_vector_hits(hits: list[Hit], vec: VectorRun) -> list[Hit]:
    """The lexical hits plus a lex-0 row per vector-only unit similar enough to be an answer (VEC_MIN:
    one below it can never be one, and each row costs fusion a document lookup)."""
    have = {(lane, d) for lane, d, _, _ in hits}
    extra = [(lane, d, 0.0, []) for lane in LANES for d, sim in vec.hits.get(lane, [])
             if (lane, d) not in have and sim >= VEC_MIN]
    return hits + extra


def similarities(vec: VectorRun) -> dict[tuple[str, int], float]:
    """(lane, doc_id) -> the unit's similarity to the query: it rides in fusion's hits literal (`_hits.vec`)."""
    return {(lane, int(d)): float(s) for lane in LANES for d, s in vec.hits.get(lane, [])}
