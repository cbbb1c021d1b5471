"""`knowledge_search` v1 over the published generation: lanes → fusion (SQL) → actors (SQL) → budget.

One engine per process keeps the published generation open read-only and follows the
`CURRENT` pointer, so a new generation is picked up without a restart. Each search runs on
its own cursor (isolated temp tables), so concurrent callers never see each other's hits.
The query is a literal everywhere: it is tokenized by the index's own SQL macro and never
becomes SQL or FTS syntax. Logs carry request id, timings and codes, never text.

The steps live in their own modules: `lane_status` (what each lane can give), `lane_runner`
(the lexical lanes under deadlines), `session` and `fusion` (prepared SQL: RRF, slots,
actors), `answer` with `items` and `actors` (the response), `budget` (its token cap),
`response_cache` and `messages` (every text, in the one language decided per search by
core/language). This module opens and follows generations, owns the per-thread cursors and runs
the steps in order.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from warehouse.core import embed
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.language import Lang, output_language
from warehouse.core.paths import Paths
from warehouse.core.proc import keep_heap_warm
from warehouse.core.settings import Settings
from warehouse.home import generation
from warehouse.search import guard, match, skill_uses, synonyms, vector
from warehouse.search.access import Catalog, Scope, View, materialise
from warehouse.search.answer import assemble
from warehouse.search.budget import apply_budget
from warehouse.search.common_words import common_query_words
from warehouse.search.contract import (
    LANES,
    AnswerMatch,
    LaneWarning,
    SearchRequest,
    SearchResponse,
    Trace,
    TraceLane,
    parse_request,
)
from warehouse.search.feedback_scores import FeedbackScores
from warehouse.search.fusion import RRF_K, fuse, nominate, read_newest, read_profiles
from warehouse.search.items import read_details
from warehouse.search.lane_runner import hidden_hits, profiles_apply, run_lanes
from warehouse.search.lane_status import LaneInfo, lane_state, read_lane_info
from warehouse.search.messages import msg
from warehouse.search.response_cache import ResponseCache
from warehouse.search.routing import lane_weights, route
from warehouse.search.session import prepare_session
from warehouse.search.side_worker import SideWorker
from warehouse.search.term_cache import TermCache
from warehouse.search.trust_scores import TrustScores
from warehouse.search.vector_matrix import VectorMatrix
from warehouse.search.watchdog import Watchdog
from warehouse.search.workspaces import WorkspaceIndex

__all__ = ["RRF_K", "SESSION_USES", "SearchEngine"]  # RRF_K: imported from here by callers before the split

log = logging.getLogger("akw.search")

T = TypeVar("T")
SEARCH_MEMORY = generation.READER_MEMORY  # the one reader policy of a process (generation.open_current)
SEARCH_THREADS = generation.READER_THREADS
SESSION_USES = 64  # searches per session cursor before it is made anew (its temp tables keep deleted rows)


class SearchEngine:
    """Serves searches from the published generation of one warehouse home."""

    def __init__(self, generations: Path, settings: Settings, cache_size: int = 256,
                 feedback_log: Path | None = None, trust_paths: Paths | None = None) -> None:
        self.generations = generations
        self.settings = settings
        self._lock = threading.Lock()
        self._con: duckdb.DuckDBPyConnection | None = None
        self._gen: generation.Generation | None = None
        self._lane_info: dict[str, LaneInfo] = {}
        self._workspaces = WorkspaceIndex()  # what a workspace filter may name, of the open generation
        self._newest = "epoch"
        self._cyrillic = 1.0  # share of the index's postings in Cyrillic (match.py: the language gap)
        self._skill_docs: dict[str, tuple[int, ...]] = {}  # skill name -> its documents (skill_uses.py)
        self._profiles: dict[int, int] = {}  # actor profile document -> its representative episode's
        self._terms = TermCache()  # query chunk -> terms, term -> vocabulary entry, of the open generation
        self._catalog: Catalog | None = None  # the ACL names of the open generation (read when access is on)
        self._local = threading.local()  # one prepared search session (cursor) per thread
        self._side_worker = SideWorker()  # statements beside the lanes and fusion, on cursors of their own
        self._watchdog = Watchdog()  # interrupts a lane query past LANE_TIMEOUT_S
        keep_heap_warm()
        self._cache = ResponseCache(cache_size)
        self._feedback = FeedbackScores(feedback_log)  # feedback.py's scores, read once, not per search
        self._trust = TrustScores(trust_paths)  # ak_trust of the curation pass, read once, not per search
        self._semantic = settings.semantic.enabled  # the vector side of the lanes (search/vector.py)
        self._ui_language = settings.ui.language  # read once: each search decides its language from it
        self._vec_info: dict[str, int] | None = None
        self._vectors = VectorMatrix()
        if self._semantic and embed.installed():
            embed.encoder()  # the model loads once per process (~0.8 s), not in the first search

    # -- connection ------------------------------------------------------------------
    def reader(self) -> tuple[duckdb.DuckDBPyCursor, generation.Generation]:
        """A new cursor on the generation this engine serves, for other read-only services in the process
        (dispatch): DuckDB opens one file with one configuration per process, so they share this one."""
        con, gen = self._connection()
        return con.cursor(), gen

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
                self._con, self._gen = generation.open_current(self.generations)
                # give freed query memory back to the OS soon: a long-lived search process stays small
                self._con.execute("SET allocator_flush_threshold = '16MB'")
                self._lane_info = read_lane_info(self._con)
                self._vec_info = vector.read_vec_info(self._con) if self._semantic else None
                self._vectors = VectorMatrix()  # the new generation's vectors, read at its first vector scan
                self._workspaces = WorkspaceIndex.read(self._con)
                self._newest = read_newest(self._con)
                self._cyrillic = match.read_index_cyrillic(self._con)
                self._skill_docs = skill_uses.read_skill_docs(self._con)
                self._profiles = read_profiles(self._con)
                self._terms = TermCache()
                self._catalog = None
                self._cache.clear()
                self._feedback.invalidate()
                self._trust.invalidate()
            if self._con is not None and (self._feedback.refresh(self._con) | self._trust.refresh(self._con)):
                self._cache.clear()  # cached responses were ranked with the old scores
            if self._con is None or self._gen is None:
                raise KnowledgeError(Code.NOT_READY, msg("search.not_published", "en"))
            local = self._local
            if getattr(local, "gen_path", None) != self._gen.path or getattr(local, "con", None) is not self._con:
                # two cursors: plain queries (lexical lanes, item details) keep the full optimizer; the
                # session cursor holds the temp tables and the prepared fusion/actor statements
                local.cur, local.sess = self._con.cursor(), prepare_session(self._con.cursor(), self._semantic)
                local.gen_path, local.con, local.uses, local.terms = self._gen.path, self._con, 0, self._terms
                local.views = {}  # scope key -> access.View: its temp table lives on local.cur
            elif local.uses >= SESSION_USES:
                # DuckDB keeps deleted rows of the session tables until they are dropped, so every
                # search scanned all earlier searches' rows (fusion 3x slower after 650 searches)
                local.sess.close()
                local.sess, local.uses = prepare_session(self._con.cursor(), self._semantic), 0
            local.uses += 1
            return local.cur, self._gen

    @property
    def cache_hits(self) -> int:
        """Searches answered from the response cache since this engine started."""
        return self._cache.hits

    def feedback_changed(self) -> None:
        """This process recorded feedback: the next search re-reads the scores (no need to wait CHECK_S)."""
        self._feedback.invalidate()

    def close(self) -> None:
        """Close the generation's connection and end the engine's threads. Until then its session tables,
        cursors and threads stay (a process that drops engines without closing them holds them until the
        cyclic GC runs: 12 searches of in-process CLI runs filled the reader's 100 MB)."""
        with self._lock:
            if self._con is not None:
                self._con.close()
            self._con, self._gen = None, None
        self._side_worker.close()
        self._watchdog.stop()

    def view(self, cur: duckdb.DuckDBPyConnection, scope: Scope | None) -> View | None:
        """The principal's view of the open generation on this thread's lane cursor (made once per cursor)."""
        if scope is None:
            return None
        views: dict[str, View] = self._local.views
        view = views.get(scope.key)  # the key is the principal and its rights, not the hint/live switches
        if view is None or view.scope.rights != scope.rights:
            with self._lock:
                if self._catalog is None:
                    self._catalog = Catalog.read(cur)
            view = views[scope.key] = materialise(cur, scope, self._catalog)
        return view if view.scope == scope else replace(view, scope=scope)

    # -- the operation ------------------------------------------------------------------
    def search(self, request: dict[str, Any] | str | SearchRequest, scope: Scope | None = None) -> SearchResponse:
        """`scope`: the caller's access scope (access.scope_for; None with access off)."""
        t0 = time.perf_counter()
        req = request if isinstance(request, SearchRequest) else parse_request(request)
        lang = output_language(self._ui_language, req.query)  # once per search: every text of the answer
        try:
            cur, gen = self._connection()
            if scope is not None:  # never cached: the late-binding trim asks the live sources every time
                resp, traces = self._search(cur, gen, req, lang, self.view(cur, scope))
                if req.trace:
                    resp.trace = Trace(lanes=traces, total_ms=round((time.perf_counter() - t0) * 1000, 3))
                self._log(req, resp, t0, cache_hit=False)
                return resp
            key = ResponseCache.key(gen.index_rev, req, lang)
            resp = self._cache.get(key, req, t0)
            if resp is not None:
                self._log(req, resp, t0, cache_hit=True)
                return resp
            resp, traces = self._search(cur, gen, req, lang)
            self._cache.put(key, resp, traces)
            if req.trace:
                resp.trace = Trace(lanes=traces, total_ms=round((time.perf_counter() - t0) * 1000, 3))
            self._log(req, resp, t0, cache_hit=False)
            return resp
        except (duckdb.BinderException, duckdb.CatalogException) as e:
            self._local.gen_path = None
            # a generation built by another akw version lacks a table or column this one reads
            raise KnowledgeError(Code.NOT_READY, msg("search.other_version", "en")) from e
        except duckdb.Error:
            self._local.gen_path = None  # a broken session is rebuilt on the next search
            raise

    def _log(self, req: SearchRequest, resp: SearchResponse, t0: float, cache_hit: bool) -> None:
        codes = sorted({w.code for w in resp.warnings} | {e.code for e in resp.errors})
        log.info("search request_id=%s ms=%.1f found=%s returned=%d cache_hit=%s codes=%s", req.request_id,
                 (time.perf_counter() - t0) * 1000, resp.found, resp.limits.returned, cache_hit, ",".join(codes))

    def _search(self, cur: duckdb.DuckDBPyConnection, gen: generation.Generation,
                req: SearchRequest, lang: Lang, view: View | None = None) -> tuple[SearchResponse, list[TraceLane]]:
        """One uncached search on this thread's cursors: route, expand, lanes, fusion, answer, budget;
        every text in `lang`."""
        routing = route(req.query, req.mode, list(req.include), lang)
        weights = lane_weights(routing)
        memo: TermCache = self._local.terms
        sess = self._local.sess  # the session cursor: its temp tables and prepared statements
        exp = synonyms.expand(cur, req.query, terms=memo.tokens(sess, req.query),
                              lookup=lambda terms: memo.lookup(cur, terms),
                              loanwords=lambda stems: memo.loanwords(cur, stems))
        known = self._workspaces if view is None else view.workspaces(self._workspaces)
        ws = known.resolve(list(req.filters.workspaces))  # ids, paths, folder names, titles
        con = self._local.con

        def beside(job: Callable[[duckdb.DuckDBPyConnection], T]) -> Future[T]:
            """`job` on a side cursor of this search's generation and view (side_worker.py)."""
            return self._side_worker.start(con, gen.path, view, job)

        allow = view.allow_clause() if view is not None else ""  # the principal's pre-filter on `d`
        vectors = None  # the vector side needs only the request: it runs beside the lexical lanes
        if self._semantic:
            judged = {ln: lane_state(ln, self._lane_info.get(ln, {}), self.settings, lang) for ln in LANES}
            vectors = beside(lambda c: vector.run_vectors(c, req, judged, self._vec_info, self._watchdog, ws, allow,
                                                          profiles_apply(req), lang, self._vectors))
        lanes = run_lanes(cur, req, exp.found, self._lane_info, self.settings, self._watchdog, ws,
                          view.bits if view is not None else "", beside, lang)
        hint = None  # the hidden hint's query runs beside fusion and the live check
        if view is not None and view.scope.hints and not lanes.no_source:
            snap = lanes._replace(state={k: dict(v) for k, v in lanes.state.items()})
            seen_all = frozenset(ln for ln, st in snap.state.items() if view.lane_docs.get(ln, 0) >= st["docs"])
            hint = beside(lambda c: hidden_hits(c, req, exp.found, self._watchdog, ws, view.hidden_clause(), snap,
                                                seen_all))
        places = None  # where the candidates live, read beside fusion for the live check (guard.trim)
        if view is not None and view.scope.live_roots is not None and lanes.hits:
            ids = [d for ln, d, _, _ in lanes.hits if ln in ("episodes", "code", "skills")]
            places = beside(lambda c: guard.prefetch(c, ids, view))
        hits, nominated = nominate(lanes.hits, self._profiles)
        lexical_hits = len(hits)
        hits = skill_uses.nominate(cur, hits, req, ws, self._skill_docs, allow)
        used_skills = {h[1] for h in hits[lexical_hits:]}  # their terms are their episodes': no why of their own
        vec = None if vectors is None or lanes.no_source else vector.of_answering_lanes(vectors.result(), lanes.state)
        semantic = None
        if vec is not None:
            nominated |= vector.nominate_profiles(vec, self._profiles)
            hits = vector.with_vector_hits(hits, vec)
            semantic = (vector.similarities(vec), vector.VEC_MIN, vector.VEC_MIN_BEST)
        details: list[Future[dict[int, dict[str, Any]]]] = []  # the items' rows, read beside the actor statement

        def read_beside(items: list[tuple]) -> None:
            ids = [int(r[1]) for r in items]
            details.append(beside(lambda c: read_details(c, ids)))

        fused, actor_rows, vec_by_doc = fuse(sess, hits, weights, req, exp, self._lane_info, self._newest, semantic,
                                             self._feedback.by_doc, self._trust.by_doc, read_beside,
                                             common=self._common_terms(req.query)) \
            if hits else ([], [], None)
        verdict = self._judge(req, exp, fused, (vec_by_doc or {}) if _answered(vec) else None)
        if verdict.level == "none":  # KC-5: no good answer is an empty answer, with its reason
            fused, actor_rows = [], []
        trimmed: list[str] = []
        if view is not None:  # actors seen in full only; then the live check of the final items
            actor_rows = guard.hold_actors(actor_rows, view)
            if places is not None:
                guard.settle(places)
            fused, actor_rows, trimmed = guard.trim(cur, fused, actor_rows, view)
            for lane, st in lanes.state.items():  # counts say what this principal can see, nothing more
                st["docs"] = view.lane_docs.get(lane, 0)
        terms_by_doc = {(lane, d): terms for lane, d, _, terms in hits if not (lane == "skills" and d in used_skills)}
        resp = assemble(cur, gen, req, routing, weights, lanes.state, fused, actor_rows, terms_by_doc, nominated,
                        lanes.no_source, self.settings, vec_by_doc, vec.state if vec is not None else None,
                        ws.unknown, known.names() if ws.unknown else [], _details(details),
                        vec.passages if vec is not None else None, lang)
        if vec is not None:
            resp.warnings.extend(vec.warnings)
        _tell_match(resp, verdict, bool(hits), lang)
        resp.fusion.feedback_rev = self._feedback.rev  # same index_rev + feedback_rev + trust_rev + request:
        resp.fusion.trust_rev = self._trust.rev  # same answer
        if view is not None:
            resp = guard.hold_usage(resp, view)
            resp.warnings.extend(guard.trim_warnings(trimmed, lang))
            if hint is not None and self._catalog is not None:
                resp.hidden = guard.hint(hint.result(), view, self._catalog) or None
        resp = apply_budget(resp, req.budget.max_tokens, lang)
        for tr in lanes.traces:
            tr.items = len(getattr(resp.lanes, tr.lane).items) if getattr(resp.lanes, tr.lane) is not None else 0
        return resp, lanes.traces

    def _common_terms(self, query: str) -> frozenset[str]:
        """The index terms of the query's common English words (search/common_words.py), by the index's macro."""
        words = common_query_words(query)
        if not words:
            return frozenset()
        terms = self._local.terms.chunk_terms(self._local.sess, words)
        return frozenset(t for w in words for t in terms.get(w, ()))

    def _judge(self, req: SearchRequest, exp: synonyms.Expansion, fused: list[tuple],
               similarity: dict[tuple[str, int], float] | None) -> match.Match:
        """The answer's strength (search/match.py); the query's words are tokenized by the index's macro."""
        df = {t: d for t, _, d in exp.found}
        sess, memo = self._local.sess, self._local.terms
        names = match.unknown_names(req.query, lambda words: memo.chunk_terms(sess, words), df, exp.generic)
        return match.judge(fused, similarity, exp.groups, df, names, self._cyrillic)


def _answered(vec: vector.VectorRun | None) -> bool:
    """The vector side answered for at least one lane (its similarities are evidence either way)."""
    return vec is not None and any(st.state == "answered" for st in vec.state.values())


def _tell_match(resp: SearchResponse, verdict: match.Match, had_candidates: bool, lang: Lang) -> None:
    """The response's `match` and, for a weak or refused answer, the warning that says why (in `lang`)."""
    sim = None if verdict.similarity is None else round(verdict.similarity, 3)
    resp.match = AnswerMatch(level=verdict.level, similarity=sim, coverage=round(verdict.coverage, 3),
                             unknown_terms=list(verdict.names) or None)
    if verdict.across and verdict.similarity is None and verdict.level != "strong":  # semantic off or unanswered
        resp.warnings.insert(0, LaneWarning(code=Code.ACROSS_LANGUAGES.value, lane="all",
                                            message=msg("match.across_hint", lang)))
    if verdict.level == "strong" or not verdict.reason or (not had_candidates and not verdict.names):
        return
    if verdict.reason == "match.nothing":  # nothing matched at all, and the query names what is not here
        verdict = verdict._replace(reason="match.unknown_names")
    code = Code.WEAK_MATCH if verdict.level == "weak" else Code.NO_GOOD_MATCH
    tail = msg("match.verdict_weak" if verdict.level == "weak" else "match.verdict_none", lang)
    text = msg(verdict.reason, lang, names=", ".join(repr(n) for n in verdict.names), sim=sim,
               cov=round(verdict.coverage, 3), verdict=tail)
    resp.warnings.insert(0, LaneWarning(code=code.value, lane="all", message=text))


def _details(read: list[Future[dict[int, dict[str, Any]]]]) -> dict[int, dict[str, Any]] | None:
    """The items' rows read beside the actor statement; None (the items read them again on the main cursor,
    once that statement's memory is free) when the side read ran out of the reader's memory: concurrent
    searches in one process share its budget, and under load one of them used to fail outright."""
    if not read:
        return None
    try:
        return read[0].result()
    except duckdb.OutOfMemoryException:
        return None
