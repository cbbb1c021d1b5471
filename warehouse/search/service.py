"""`knowledge_search` v1 over the published generation: lanes → fusion (SQL) → actors (SQL) → budget.

One engine per process keeps the published generation open read-only and follows the
`CURRENT` pointer, so a new generation is picked up without a restart. Each search runs on
its own cursor (isolated temp tables), so concurrent callers never see each other's hits.
The query is a literal everywhere: it is tokenized by the index's own SQL macro and never
becomes SQL or FTS syntax. Logs carry request id, timings and codes, never text.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb

from warehouse import generation, literals
from warehouse.errors import Code, KnowledgeError
from warehouse.proc import keep_heap_warm
from warehouse.search import lexical, synonyms
from warehouse.search.budget import apply_budget
from warehouse.search.contract import (
    Actor,
    ActorDispatch,
    ActorEvidence,
    ActorSkill,
    CodeItem,
    CodeLane,
    EpisodeItem,
    EpisodeLane,
    EpisodeSession,
    ErrorItem,
    Freshness,
    Fusion,
    Lanes,
    Limits,
    SearchRequest,
    SearchResponse,
    SkillItem,
    SkillLane,
    Trace,
    TraceLane,
    UsedBy,
    Warning,
    parse_request,
)
from warehouse.search.filters import is_selective, lane_predicate
from warehouse.search.routing import lane_weights, route
from warehouse.search.snippets import make_snippet
from warehouse.search.term_cache import TermCache
from warehouse.search.watchdog import Watchdog
from warehouse.settings import Settings
from warehouse.sqlfiles import query_sql

log = logging.getLogger("akw.search")

RRF_K = 60
K_LANE = 30  # per-lane top K entering fusion (contract §7.1)
K_RAW = 60  # raw hits fetched per lane before the episodes lane collapses events into episodes
MIN_COVERAGE = 0.2  # idf-weighted share of query terms an item must match to be an answer
MIN_BEST_COVERAGE = 0.3  # below this even for the best item, the query has no answer here
OOV_WEIGHT = 0.5  # weight of a query term the index has never seen, relative to the rarest known term
MAX_COVERAGE_TERMS = 62  # one bit per term in a BIGINT
LANE_TIMEOUT_S = 0.25  # contract §11
SEARCH_MEMORY = "100MB"  # buffer pool of a search process: the hot index pages; RSS stays < 300 MB at 1M
SEARCH_THREADS = 1  # one thread: small statements pay twice the CPU with a second worker (measured), and
# the lexical lane queries of a million documents gain less from it than that costs
LANES = ("episodes", "code", "skills")
SESSION_USES = 64  # searches per session cursor before it is made anew (its temp tables keep deleted rows)
MAX_ACTORS = 5  # UJ-1 asks for the top three; a few more give the caller a choice
SCORE_MAX = 1.9  # max of the FR-5.3 actor formula: 1 + 0.3 + 0.2 + 0.2 + 0.1 + 0.1
BACKENDS = {"episodes": "akw.episode-index", "code": "akw.code-index", "skills": "akw.skill-index"}
SOURCE_FLAGS = {"episodes": ("harness", "autoclaw"), "code": ("code",), "skills": ("skills",)}


def _iso(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, datetime):
        return v.isoformat().replace("+00:00", "Z")
    return str(v)


class SearchEngine:
    """Serves searches from the published generation of one warehouse home."""

    def __init__(self, generations: Path, settings: Settings, cache_size: int = 256) -> None:
        self.generations = generations
        self.settings = settings
        self._lock = threading.Lock()
        self._con: duckdb.DuckDBPyConnection | None = None
        self._gen: generation.Generation | None = None
        self._lane_info: dict[str, dict[str, Any]] = {}
        self._newest = "epoch"
        self._terms = TermCache()  # query chunk -> terms, term -> vocabulary entry, of the open generation
        self._local = threading.local()  # one prepared search session (cursor) per thread
        self._watchdog = Watchdog()  # interrupts a lane query past LANE_TIMEOUT_S
        keep_heap_warm()
        self._cache: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._cache_size = cache_size

    # -- connection ------------------------------------------------------------------
    def _connection(self) -> tuple[duckdb.DuckDBPyConnection, generation.Generation]:
        with self._lock:
            published = generation.current(self.generations)
            if published is None:
                if self._con is not None:
                    self._con.close()
                self._con, self._gen = None, None
            elif self._gen is None or published.path != self._gen.path:
                if self._con is not None:
                    self._con.close()
                self._con, self._gen = generation.open_current(self.generations, memory_limit=SEARCH_MEMORY,
                                                               threads=SEARCH_THREADS)
                # give freed query memory back to the OS soon: a long-lived search process stays small
                self._con.execute("SET allocator_flush_threshold = '16MB'")
                self._lane_info = self._read_lane_info(self._con)
                self._newest = self._read_newest(self._con)
                self._terms = TermCache()
                self._cache.clear()
            if self._con is None or self._gen is None:
                raise KnowledgeError(Code.NOT_READY, "no index generation is published yet (run `akw reindex`)")
            local = self._local
            if getattr(local, "gen_path", None) != self._gen.path or getattr(local, "con", None) is not self._con:
                # two cursors: plain queries (lexical lanes, item details) keep the full optimizer; the
                # session cursor holds the temp tables and the prepared fusion/actor statements
                local.cur, local.sess = self._con.cursor(), _session(self._con.cursor())
                local.gen_path, local.con, local.uses, local.terms = self._gen.path, self._con, 0, self._terms
            elif local.uses >= SESSION_USES:
                # DuckDB keeps deleted rows of the session tables until they are dropped, so every
                # search scanned all earlier searches' rows (fusion 3x slower after 650 searches)
                local.sess.close()
                local.sess, local.uses = _session(self._con.cursor()), 0
            local.uses += 1
            return local.cur, self._gen

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                self._con.close()
            self._con, self._gen = None, None

    @staticmethod
    def _read_lane_info(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, Any]]:
        info: dict[str, dict[str, Any]] = {lane: {"docs": 0, "rev": None, "failed_units": 0, "codes": []}
                                           for lane in LANES}
        for lane, n in con.execute("SELECT lane, n_docs FROM fts_lane_stats").fetchall():
            if lane in info:
                info[lane]["docs"] = int(n)
        for lane, rev, failed, codes in con.execute(query_sql("lane_revs")).fetchall():
            if lane in info:
                info[lane].update(rev=rev, failed_units=int(failed), codes=list(codes or []))
        return info

    @staticmethod
    def _read_newest(con: duckdb.DuckDBPyConnection) -> str:
        """The newest activity in the index as a UTC literal: the actors' recency reference."""
        newest = con.execute("SELECT strftime(max(coalesce(ended_at, started_at)) AT TIME ZONE 'UTC', "
                             "'%Y-%m-%d %H:%M:%S.%f+00') FROM ak_episode").fetchone()[0]
        return newest or "epoch"

    # -- the operation ------------------------------------------------------------------
    def search(self, request: dict[str, Any] | str | SearchRequest) -> SearchResponse:
        t0 = time.perf_counter()
        req = request if isinstance(request, SearchRequest) else parse_request(request)
        try:
            cur, gen = self._connection()
            key = (gen.index_rev, req.model_dump_json(by_alias=True, exclude={"request_id", "trace"}))
            cached = self._cache.get(key)
            if cached is not None:
                resp = SearchResponse.model_validate_json(cached)
                resp = resp.model_copy(update={"request_id": req.request_id})
                if req.trace:
                    resp.trace = Trace(lanes=[TraceLane(lane=t.lane, ms=0.0, items=t.items, degraded=t.degraded,
                                                        cache_hit=True) for t in (resp.trace.lanes if resp.trace
                                                                                  else [])],
                                       total_ms=round((time.perf_counter() - t0) * 1000, 3))
                else:
                    resp.trace = None
                self._log(req, resp, t0, cache_hit=True)
                return resp
            resp, traces = self._search(cur, gen, req)
            stored = resp.model_copy(update={"trace": Trace(lanes=traces)})
            self._cache[key] = stored.model_dump_json(by_alias=True)
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
            if req.trace:
                resp.trace = Trace(lanes=traces, total_ms=round((time.perf_counter() - t0) * 1000, 3))
            self._log(req, resp, t0, cache_hit=False)
            return resp
        except (duckdb.BinderException, duckdb.CatalogException) as e:
            self._local.gen_path = None
            # a generation built by another akw version lacks a table or column this one reads
            raise KnowledgeError(Code.NOT_READY, "the published index was built by another akw version and "
                                 "cannot be searched by this one: run `akw reindex`") from e
        except duckdb.Error:
            self._local.gen_path = None  # a broken session is rebuilt on the next search
            raise

    def _log(self, req: SearchRequest, resp: SearchResponse, t0: float, cache_hit: bool) -> None:
        codes = sorted({w.code for w in resp.warnings} | {e.code for e in resp.errors})
        log.info("search request_id=%s ms=%.1f found=%s returned=%d cache_hit=%s codes=%s", req.request_id,
                 (time.perf_counter() - t0) * 1000, resp.found, resp.limits.returned, cache_hit, ",".join(codes))

    def _search(self, cur: duckdb.DuckDBPyConnection, gen: generation.Generation,
                req: SearchRequest) -> tuple[SearchResponse, list[TraceLane]]:
        routing = route(req.query, req.mode, list(req.include))
        weights = lane_weights(routing)
        lanes = [lane for lane in LANES if lane in req.include or lane in ("episodes", "code")]
        state: dict[str, dict[str, Any]] = {}
        traces: list[TraceLane] = []
        hits: list[tuple[str, int, float, list[str]]] = []
        memo: TermCache = self._local.terms
        exp = synonyms.expand(cur, req.query, terms=memo.tokens(self._local.sess, req.query),
                              lookup=lambda terms: memo.lookup(cur, terms))
        found = exp.found
        for lane in lanes:
            st = self._lane_state(lane)
            t = time.perf_counter()
            if not st["unavailable"] and lane in req.include:
                try:
                    rows = self._lane_hits(cur, lane, req, found, st["docs"]) if found else []
                    hits += [(lane, d, s, terms) for d, s, terms in rows]
                    st["hits"] = len(rows)
                except duckdb.InterruptException:
                    st.update(unavailable=True, degraded=True, code=Code.LANE_DEGRADED.value,
                              reason=f"lane timed out after {int(LANE_TIMEOUT_S * 1000)} ms")
                except (duckdb.BinderException, duckdb.CatalogException):
                    raise  # the generation does not fit this version: KNOWLEDGE_NOT_READY (search)
                except duckdb.Error as e:  # e.g. out of memory: this lane fails, the others answer (§9)
                    # the error's text may quote the query's SQL literal: log and name its class only
                    log.warning("search request_id=%s lane=%s failed: %s", req.request_id, lane, type(e).__name__)
                    st.update(unavailable=True, degraded=True, code=Code.LANE_DEGRADED.value,
                              reason=f"lane query failed ({type(e).__name__})")
            state[lane] = st
            traces.append(TraceLane(lane=lane, ms=round((time.perf_counter() - t) * 1000, 3),
                                    items=st.get("hits", 0), degraded=st["degraded"]))
        no_source = state["episodes"]["unavailable"] and state["code"]["unavailable"]
        if no_source:
            hits = []
        fused, actors_rows = self._fuse(hits, weights, req, exp) if hits else ([], [])
        terms_by_doc = {(lane, d): terms for lane, d, _, terms in hits}
        resp = self._assemble(cur, gen, req, routing, weights, state, fused, actors_rows, terms_by_doc, no_source)
        resp = apply_budget(resp, req.budget.max_tokens)
        for tr in traces:
            tr.items = len(getattr(resp.lanes, tr.lane).items) if getattr(resp.lanes, tr.lane) is not None else 0
        return resp, traces

    def _lane_state(self, lane: str) -> dict[str, Any]:
        info = self._lane_info.get(lane, {})
        enabled = any(getattr(self.settings.sources, f) for f in SOURCE_FLAGS[lane])
        st: dict[str, Any] = {"rev": info.get("rev") or f"lane-{lane}-empty", "docs": info.get("docs", 0),
                              "unavailable": False, "degraded": False, "code": None, "reason": None}
        if not enabled:
            st.update(unavailable=True, degraded=True, code=Code.SOURCE_UNAVAILABLE.value,
                      reason=f"the {lane} source is disabled in settings")
        elif st["docs"] == 0:
            st.update(unavailable=True, degraded=True, code=Code.INDEX_NOT_READY.value,
                      reason=f"no {lane} documents are indexed"
                      + (f" ({', '.join(info.get('codes', []))})" if info.get("codes") else ""))
        elif info.get("failed_units"):
            st.update(degraded=True, code=Code.LANE_DEGRADED.value,
                      reason=f"{info['failed_units']} source unit(s) failed: {', '.join(info['codes'])}")
        return st

    def _lane_hits(self, cur: duckdb.DuckDBPyConnection, lane: str, req: SearchRequest,
                   found: list[tuple[str, int, int]], lane_docs: int) -> list[tuple[int, float, list[str]]]:
        where = lane_predicate(lane, req.filters)
        with self._watchdog.deadline(cur, LANE_TIMEOUT_S):
            return lexical.lexical_search(cur, lane, req.query, k=K_RAW if lane == "episodes" else K_LANE,
                                          where_sql=where, found=found, lane_docs=lane_docs,
                                          selective=is_selective(lane, req.filters))

    def _fuse(self, hits: list[tuple[str, int, float, list[str]]],
              weights: dict[str, float], req: SearchRequest,
              exp: synonyms.Expansion) -> tuple[list[tuple], list[tuple]]:
        terms = exp.terms[:MAX_COVERAGE_TERMS]
        bit = {t: 1 << i for i, t in enumerate(terms)}
        n_docs = max(sum(int(v.get("docs", 0)) for v in self._lane_info.values()), 1)
        df = {t: d for t, _, d in exp.found}
        max_idf = math.log(1 + n_docs / 0.5)

        def weight(group: list[str]) -> float:
            # a group weighs as its rarest known term; an unknown one may be a paraphrase, not a
            # missing topic: it weighs OOV_WEIGHT of the rarest possible term
            known = [df[t] for t in group if t in df]
            return math.log(1 + n_docs / (min(known) + 0.5)) if known else OOV_WEIGHT * max_idf

        groups = [g for g in exp.groups if g[0] in bit]
        masks = [sum(bit.get(t, 0) for t in g) for g in groups]
        idf = [weight(g) for g in groups]
        cur = self._local.sess  # the session cursor: its temp tables and prepared statements
        cur.execute("DELETE FROM _hits; DELETE FROM _fused")
        rows = literals.number_rows((LANES.index(h[0]), h[1], float(h[2]), sum(bit.get(t, 0) for t in h[3]))
                                    for h in hits)
        cur.execute(query_sql("hits").replace("{doc_ids}", ",".join(str(int(h[1])) for h in hits)).replace("{rows}", rows))
        quotas = _quotas(weights, req)
        # EXECUTE arguments typed exactly as declared: a type mismatch re-binds the statement each time
        args = [literals.double(weights.get(ln, 0.0)) for ln in LANES] + [
            literals.double(sum(idf) or 1.0), literals.double(MIN_COVERAGE), literals.double(MIN_BEST_COVERAGE),
            literals.bigint(2 if len(groups) >= 3 else 1), literals.bigint(K_LANE), literals.double(RRF_K),
            literals.integers(masks), literals.doubles(idf)]
        cur.execute(f"EXECUTE akw_fuse({', '.join(args)})")
        slots = [quotas.get(ln, 0) for ln in LANES] + [int(req.limit)]
        fused = cur.execute(f"EXECUTE akw_slots({', '.join(literals.bigint(x) for x in slots)})").fetchall()
        return fused, cur.execute(f"EXECUTE akw_actors('{self._newest}'::TIMESTAMPTZ)").fetchall()

    # -- response ---------------------------------------------------------------------
    def _assemble(self, cur: duckdb.DuckDBPyConnection, gen: generation.Generation, req: SearchRequest,
                  routing: Any, weights: dict[str, float], state: dict[str, dict[str, Any]], fused: list[tuple],
                  actor_rows: list[tuple], terms_by_doc: dict[tuple[str, int], list[str]],
                  no_source: bool) -> SearchResponse:
        details = {}
        if fused:
            ids = ",".join(str(int(r[1])) for r in fused)
            res = cur.execute(query_sql("item_details").replace("{doc_ids}", ids))
            cols = [c[0] for c in res.description]
            details = {row[0]: dict(zip(cols, row, strict=True)) for row in res.fetchall()}
        words = req.query.split()
        locator = req.provenance == "locator"
        items: dict[str, list[Any]] = {lane: [] for lane in LANES}
        for lane, doc_id, doc_key, rrf, rel, coverage, _rank, _actor in fused:
            d = details[doc_id]
            terms = [t.lstrip("=") for t in terms_by_doc.get((lane, doc_id), [])]
            snippet = None if locator else make_snippet(d["text"] or "", terms + words, req.budget.snippet_chars)
            why = [f"lex: {', '.join(terms[:6])}", f"coverage: {coverage:.2f}"] if terms else []
            if lane == "episodes":
                why.insert(0, f"fts: match in {d['event_type']}")
                if d["outcome"]:
                    why.append(f"outcome: {d['outcome']}")
                items[lane].append(EpisodeItem(
                    id=doc_key, session_id=d["session_id"] or "", seq=max(int(d["seq"] or 0), 0),
                    event_type=d["event_type"] or d["kind"], time=_iso(d["time"]), surface="indexed",
                    snippet=snippet, score=round(rrf, 6), why=why,
                    session=EpisodeSession(cwd=d["session_cwd"], workspace=d["workspace_id"] or d["workspace_path"],
                                           created_at=_iso(d["session_created_at"]), agent_preset=d["session_preset"],
                                           title=d["session_title"], outcome=d["outcome"], live=False,
                                           persisted=True)))
            elif lane == "code":
                items[lane].append(CodeItem(
                    id=doc_key, chunk_id=doc_key, path=d["path"], start_line=max(int(d["start_line"] or 1), 1),
                    end_line=d["end_line"], workspace=d["workspace_id"], language=d["language"], symbol=d["symbol"],
                    source_kind=d["source_kind"], provenance="stated", score=round(rel, 6), why=why,
                    snippet=snippet))
            else:
                items[lane].append(SkillItem(
                    id=doc_key, name=d["skill_name"] or d["title"], path=d["skill_path"],
                    description=_cut(d["skill_description"]), when_to_use=_cut(d["skill_when_to_use"]),
                    content_hash=d["skill_hash"], score=round(rrf, 6), why=why,
                    used_by=[UsedBy(actor_id=u["actor_id"], episode_id=u["episode_id"], uses=int(u["uses"]))
                             for u in d["skill_used_by"] or []]))
        doc_actor = {doc_key: actor for lane, _, doc_key, *_, actor in fused if lane == "episodes" and actor}
        actors = self._actors(cur, req, actor_rows, items["episodes"], doc_actor)
        warnings: list[Warning] = []
        errors: list[ErrorItem] = []
        for lane in LANES:
            st = state.get(lane)
            if st is None:
                continue
            if st["degraded"]:
                warnings.append(Warning(code=st["code"], lane=lane, message=st["reason"]))
            elif lane in req.include and not items[lane] and not no_source:
                warnings.append(Warning(code="KNOWLEDGE_NO_MATCH", lane=lane,
                                        message="no indexed document matches; widen the filters (workspaces, since, "
                                                "outcome) or run `akw reindex` if the work is recent"))
        if no_source:
            errors.append(ErrorItem(code=Code.NO_SOURCE.value, message="neither the episodes nor the code lane is "
                                    "available: " + "; ".join(state[ln]["reason"] for ln in ("episodes", "code")),
                                    retryable=True))
        ep, co, sk = state["episodes"], state["code"], state.get("skills")
        lanes = Lanes(
            episodes=EpisodeLane(backend=BACKENDS["episodes"], index_rev=ep["rev"], observed_at=gen.published_at,
                                 degraded=ep["degraded"], degradation_reason=ep["reason"],
                                 counts={"indexed_docs": ep["docs"]}, items=items["episodes"]),
            code=CodeLane(backend=BACKENDS["code"], index_rev=co["rev"],
                          capability="degraded" if co["unavailable"] else ("partial" if co["degraded"] else "full"),
                          freshness=Freshness(stale=False, verified_by="content-hash"),
                          degraded=co["degraded"], degradation_reason=co["reason"], items=items["code"]),
            skills=SkillLane(backend=BACKENDS["skills"], index_rev=sk["rev"], degraded=sk["degraded"],
                             degradation_reason=sk["reason"], items=items["skills"]) if "skills" in req.include
            and sk is not None else None,
        )
        returned = sum(len(v) for v in items.values())
        return SearchResponse(
            request_id=req.request_id, query=req.query, found=returned > 0, routing=routing, lanes=lanes,
            actors=actors, fusion=Fusion(k=RRF_K, weights=weights, dedup="by id within a lane"),
            limits=Limits(requested=req.limit, returned=returned), warnings=warnings, errors=errors)

    def _actors(self, cur: duckdb.DuckDBPyConnection, req: SearchRequest, rows: list[tuple],
                episode_items: list[EpisodeItem], doc_actor: dict[str, str]) -> list[Actor]:
        evidence: dict[str, list[str]] = {}
        for it in episode_items:  # evidence may only name items the response returns (KC-7)
            if it.id in doc_actor:
                evidence.setdefault(doc_actor[it.id], []).append(it.id)
        order = {it.id: i for i, it in enumerate(episode_items)}
        picked = [r for r in rows if r[0] in evidence][: min(req.limit, MAX_ACTORS)]
        if not picked:
            return []
        skills = {r[0]: [ActorSkill(name=s["name"], uses=int(s["uses"])) for s in r[-1]] for r in picked}
        ru = any("а" <= ch.lower() <= "я" or ch.lower() == "ё" for ch in req.query)
        out = []
        for (actor_id, kind, source, name, dispatch_mode, _rate, _total, n_eps, _max_rel, _top3, success, recency,
             same_ws, overlap, last_time, score, _skills) in picked:
            ev = sorted(evidence[actor_id], key=lambda k: order[k])[:3]
            out.append(Actor(
                actor_id=actor_id, name=name, kind=kind, source=source,
                confidence=round(min(1.0, float(score) / SCORE_MAX), 4), score=round(float(score), 6),
                why=_why(ru, int(n_eps), float(success), skills.get(actor_id, []), bool(same_ws), float(overlap),
                         float(recency), _iso(last_time)),
                evidence=[ActorEvidence(lane="episodes", id=k) for k in ev],
                skills=skills.get(actor_id, []),
                dispatch=ActorDispatch(mode=dispatch_mode, available=self._dispatch_available(dispatch_mode))))
        return out

    def _dispatch_available(self, mode: str) -> bool:
        d = self.settings.dispatch
        if mode == "external_handoff":
            return d.allow_external_handoff
        if mode in ("spawn_replica", "team_task"):
            return d.allow_spawn_replica
        return False


def _session(cur: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """Input tables and prepared fusion/slots/actors statements on a fresh cursor (planned once).

    The plans are made while the input tables are empty and reused for every search, so the
    optimizer must not fold in what the tables' statistics say at planning time (it would prune
    scans of "empty" tables): statistics propagation is off for this cursor.
    """
    cur.execute("SET disabled_optimizers = 'statistics_propagation'")
    lexical.with_tokenizer(cur, "SELECT akw_terms('')")  # temp macros if the builder did not store them
    for stmt in cur.extract_statements(query_sql("session")):
        cur.execute(stmt)
    for name in ("fuse", "slots"):
        cur.execute(query_sql(name))
    cur.execute("PREPARE akw_actors AS\n" + query_sql("actors"))
    return cur


def _quotas(weights: dict[str, float], req: SearchRequest) -> dict[str, int]:
    """Slots each included lane is sure of: its share of `limit` by routing weight, at least one."""
    lanes = [ln for ln in LANES if ln in req.include and weights.get(ln, 0) > 0]
    total = sum(weights[ln] for ln in lanes) or 1.0
    return {ln: max(1, int(req.limit * weights[ln] / total)) for ln in lanes}


def _cut(text: str | None, chars: int = 300) -> str | None:
    """Lane items carry a short description; the whole text is in `akw get skill` (spec FR-5.9)."""
    if text is None or len(text) <= chars:
        return text
    return text[: chars - 1].rsplit(" ", 1)[0] + "…"


def _why(ru: bool, episodes: int, success: float, skills: list[ActorSkill], same_ws: bool, overlap: float,
         recency: float, last: str | None) -> list[str]:
    out = [f"{episodes} эпизод(а) по теме запроса" if ru else f"{episodes} matching episode(s)"]
    if success >= 0.99:
        out.append("успешный итог" if ru else "successful outcome")
    elif success > 0:
        out.append("частично успешные итоги" if ru else "partly successful outcomes")
    else:
        out.append("итог: неудача" if ru else "outcome: failure")
    if skills:
        s = skills[0]
        out.append(f"навык {s.name} ({s.uses})" if ru else f"skill {s.name} ({s.uses} uses)")
    if same_ws:
        out.append("тот же workspace" if ru else "same workspace")
    if overlap > 0:
        out.append("применял найденные навыки" if ru else "used the matching skills")
    if last:
        recent = recency >= 0.8
        out.append(("недавно: " if ru else "recent: ") + last[:10] if recent
                   else ("последняя активность " if ru else "last active ") + last[:10])
    return out
