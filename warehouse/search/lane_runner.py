"""The lexical lanes of one search: each included lane's query under a deadline, degrading on failure.

The first included lane runs on the search's plain cursor and the others, one after another, on a
side cursor at the same time (search/side_worker.py; each cursor one DuckDB thread). A lane query
past `LANE_TIMEOUT_S` (contract §11) is interrupted by the engine's one watchdog thread, and a query that
fails (out of memory, say) degrades its lane only: the other lanes still answer (§9). A
generation that does not fit this version (binder/catalog errors) is not a lane failure and
propagates, so the engine reports KNOWLEDGE_NOT_READY. Neither case ever logs the query text.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any, NamedTuple

import duckdb

from warehouse.core import literals
from warehouse.core.settings import Settings
from warehouse.core.sqlfiles import render
from warehouse.search import lexical, routing
from warehouse.search.contract import LANES, SearchRequest, TraceLane
from warehouse.search.filters import is_selective, lane_predicate
from warehouse.search.lane_status import ACTOR_LANE, LaneInfo, LaneState, fail_lane, lane_state
from warehouse.search.messages import Lang, msg
from warehouse.search.watchdog import Watchdog
from warehouse.search.workspaces import Resolved

log = logging.getLogger("akw.search")

K_LANE = 30  # per-lane top K entering fusion (contract §7.1)
K_RAW = 60  # raw hits fetched per lane before the episodes lane collapses events into episodes
K_ACTORS = 10  # actor profile hits fetched (fusion.nominate takes the best three)
LANE_TIMEOUT_S = 0.25  # contract §11

Hit = tuple[str, int, float, list[str]]  # (lane, doc_id, lexical score, the query terms it matched)


class LaneRun(NamedTuple):
    """What the lanes of one search found, and the state the response reports for each."""

    state: dict[str, LaneState]  # every lane the response reports on
    traces: list[TraceLane]
    hits: list[Hit]  # empty when no lane could answer
    no_source: bool  # no included lane is available (episodes and code, and skills unless it answers alone)


Beside = Callable[[Callable[[duckdb.DuckDBPyConnection], Any]], Future]  # starts a job on a side cursor


def run_lanes(cur: duckdb.DuckDBPyConnection, req: SearchRequest, found: list[tuple[str, int, int]],
              lane_info: Mapping[str, LaneInfo], settings: Settings, watchdog: Watchdog,
              ws: Resolved, allow: str = "", beside: Beside | None = None, lang: Lang = "en") -> LaneRun:
    """Query every included lane (episodes and code are reported on even when not included; reasons in `lang`);
    `ws` is the workspace filter resolved to document numbers (unused without one); `allow` names the
    principal's visible-document bitstring (access.View.bits; empty with access off), probed before ranking.
    `beside` (search/side_worker.py): the first included lane runs on `cur`, the others at the same time
    on a side cursor (lanes are independent queries; each keeps its deadline and its failure)."""
    lanes = [lane for lane in LANES if lane in req.include or lane in ("episodes", "code")]
    queried = [lane for lane in lanes if lane in req.include]

    def run(c: duckdb.DuckDBPyConnection, names: list[str]) -> list[tuple[LaneState, TraceLane, list[Hit]]]:
        return [_one_lane(c, lane, req, found, lane_info, settings, watchdog, ws, allow, lang) for lane in names]

    rest = [lane for lane in lanes if queried and lane != queried[0]]
    side = beside(lambda c: run(c, rest)) if beside is not None and found and len(queried) > 1 else None
    here = [lane for lane in lanes if side is None or lane not in rest]
    done = dict(zip(here, run(cur, here), strict=True))
    if side is not None:
        done.update(zip(rest, side.result(), strict=True))
    state: dict[str, LaneState] = {}
    traces: list[TraceLane] = []
    hits: list[Hit] = []
    for lane in lanes:  # the contract's lane order, whichever cursor ran a lane
        state[lane], trace, rows = done[lane]
        traces.append(trace)
        hits += rows
    # a warehouse of skills only (no sessions, no code yet) still answers from its skills lane; the
    # episodes and code lanes then say, degraded, that they have no source
    skills_answer = "skills" in req.include and not state.get("skills", {"unavailable": True})["unavailable"]
    no_source = state["episodes"]["unavailable"] and state["code"]["unavailable"] and not skills_answer
    if no_source:
        hits = []
    elif found and "hits" in state["episodes"] and profiles_apply(req):
        hits += _actor_hits(cur, req, found, lane_info.get(ACTOR_LANE, {}), watchdog, ws, allow)
    return LaneRun(state, traces, hits, no_source)


def _one_lane(cur: duckdb.DuckDBPyConnection, lane: str, req: SearchRequest, found: list[tuple[str, int, int]],
              lane_info: Mapping[str, LaneInfo], settings: Settings, watchdog: Watchdog, ws: Resolved,
              allow: str, lang: Lang) -> tuple[LaneState, TraceLane, list[Hit]]:
    """One lane: its state, its trace and its hits (a failed or timed-out lane degrades alone, §9)."""
    st = lane_state(lane, lane_info.get(lane, {}), settings, lang)
    t = time.perf_counter()
    hits: list[Hit] = []
    if not st["unavailable"] and lane in req.include:
        try:
            rows = _lane_hits(cur, lane, req, found, st["docs"], watchdog, ws, allow) if found else []
            hits = [(lane, d, s, terms) for d, s, terms in rows]
            st["hits"] = len(rows)
        except duckdb.InterruptException:
            fail_lane(st, msg("lane.timed_out", lang, ms=int(LANE_TIMEOUT_S * 1000)))
        except (duckdb.BinderException, duckdb.CatalogException):
            raise  # the generation does not fit this version: KNOWLEDGE_NOT_READY (search)
        except duckdb.Error as e:  # e.g. out of memory: this lane fails, the others answer (§9)
            # the error's text may quote the query's SQL literal: log and name its class only
            log.warning("search request_id=%s lane=%s failed: %s", req.request_id, lane, type(e).__name__)
            fail_lane(st, msg("lane.query_failed", lang, error=type(e).__name__))
    trace = TraceLane(lane=lane, ms=round((time.perf_counter() - t) * 1000, 3), items=st.get("hits", 0),
                      degraded=st["degraded"])
    return st, trace, hits


def profiles_apply(req: SearchRequest) -> bool:
    """Actor profiles answer a query that names a kind of actor ("an agent that reviews database
    migrations", routing.names_a_role), not one about work done ("who moved iya.ru": the episodes
    that did it answer), and only where their evidence honours the filters: a workspace or actor
    filter holds for the profile's representative episode; session, time, outcome and skill
    filters are about episodes a profile cannot vouch for, so they switch profiles off."""
    f = req.filters
    return routing.names_a_role(req.query) and not (f.session_ids or f.since or f.until or f.outcome != "any"
                                                    or f.skills)


def _actor_hits(cur: duckdb.DuckDBPyConnection, req: SearchRequest, found: list[tuple[str, int, int]],
                info: Mapping[str, object], watchdog: Watchdog, ws: Resolved, allow: str = "") -> list[Hit]:
    """The internal actors lane: profile documents matching the query (none when it fails: the
    episodes lane already answered, and a missing profile only loses a nomination)."""
    docs = int(info.get("docs", 0) or 0)
    if docs == 0:
        return []
    try:
        rows = _lane_hits(cur, ACTOR_LANE, req, found, docs, watchdog, ws, allow)
    except (duckdb.BinderException, duckdb.CatalogException):
        raise  # as above: KNOWLEDGE_NOT_READY
    except duckdb.Error as e:
        log.warning("search request_id=%s lane=%s failed: %s", req.request_id, ACTOR_LANE, type(e).__name__)
        return []
    return [(ACTOR_LANE, d, s, terms) for d, s, terms in rows]


def _lane_hits(cur: duckdb.DuckDBPyConnection, lane: str, req: SearchRequest, found: list[tuple[str, int, int]],
               lane_docs: int, watchdog: Watchdog, ws: Resolved, allow: str = "",
               k: int | None = None) -> list[tuple[int, float, list[str]]]:
    where = lane_predicate(lane, req.filters, ws)
    with watchdog.deadline(cur, LANE_TIMEOUT_S):
        k = k or (K_RAW if lane == "episodes" else K_ACTORS if lane == ACTOR_LANE else K_LANE)
        return lexical.lexical_search(cur, lane, req.query, k=k,
                                      where_sql=where, found=found, lane_docs=lane_docs,
                                      selective=is_selective(lane, req.filters), allow_table=allow)


HINT_TERMS = 2  # the hidden hint looks for the query's rarest terms only: short postings, a cheap query


def hidden_hits(cur: duckdb.DuckDBPyConnection, req: SearchRequest, found: list[tuple[str, int, int]],
                watchdog: Watchdog, ws: Resolved, hidden: str, lanes: LaneRun,
                seen_all: frozenset[str] = frozenset()) -> list[int]:
    """Documents the principal may not see that bear on the query, for the content-free hint only (they
    never reach fusion or the response): in an answering lane, under the request's filters, holding the
    query's `HINT_TERMS` most specific (rarest) known terms — what makes them relevant, read off their
    shortest postings in one statement for all lanes (sql/queries/search/access_hidden.sql). A failed or slow
    query gives no hint (the hint is optional, never a reason to fail). A lane in `seen_all` (the
    principal sees every document of it) hides nothing and is not read."""
    rare = sorted(sorted(found, key=lambda r: (r[2], r[1]))[:HINT_TERMS], key=lambda r: r[1])
    answering = [ln for ln in req.include if not lanes.state.get(ln, {}).get("unavailable")
                 and not lanes.state.get(ln, {}).get("degraded") and ln not in seen_all]
    if not rare or not answering:
        return []
    postings = " UNION ALL ".join(render("lexical_postings", lane=literals.text(ln), term_id=str(int(tid)))
                                  for ln in answering for _, tid, _ in rare)
    preds = {ln: lane_predicate(ln, req.filters, ws) for ln in answering}
    filters = " OR ".join(f"(d.lane = {literals.text(ln)} AND ({p or 'true'}))" for ln, p in preds.items()) \
        if any(preds.values()) else "true"  # unfiltered: no join to ak_document at all
    documents = "held AS h JOIN ak_document AS d ON d.doc_id = h.doc_id" if filters != "true" else "held AS d"
    sql = render("access_hidden", postings=postings, terms=str(len(rare)), k=str(int(req.limit) * len(answering)),
                 documents=documents, lane_filters=filters, hidden=hidden)
    try:
        with watchdog.deadline(cur, LANE_TIMEOUT_S):
            return [int(r[0]) for r in cur.execute(sql).fetchall()]
    except (duckdb.BinderException, duckdb.CatalogException):
        raise
    except duckdb.Error:
        return []
