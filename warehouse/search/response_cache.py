"""Whole responses of repeated requests, per index revision: a repeat is answered without any SQL.

An answer is a pure function of the generation and the request (KC-12), so the key is the
generation's `index_rev`, the answer's language (core/language: the query's letters decide it, or
the settings, or the locale) and the request without `request_id` and `trace`; a new generation
empties the cache. Entries are the stored JSON text (immutable, small), the oldest leaves first.
A hit keeps the first answer's per-lane trace, with zero time and `cache_hit`.
"""

from __future__ import annotations

import time
from collections import OrderedDict

from warehouse.search.contract import SearchRequest, SearchResponse, Trace, TraceLane

CacheKey = tuple[str, str, str]


class ResponseCache:
    """At most `size` responses, keyed by `key(index_rev, req)`."""

    def __init__(self, size: int) -> None:
        self._entries: OrderedDict[CacheKey, str] = OrderedDict()
        self._size = size
        self.hits = 0  # answers served from the cache since the engine started (the bench checks it)

    @staticmethod
    def key(index_rev: str, req: SearchRequest, lang: str = "en") -> CacheKey:
        return index_rev, lang, req.model_dump_json(by_alias=True, exclude={"request_id", "trace"})

    def get(self, key: CacheKey, req: SearchRequest, t0: float) -> SearchResponse | None:
        """The stored answer as `req` asks for it (its request id; a trace only if asked), or None."""
        cached = self._entries.get(key)
        if cached is None:
            return None
        self.hits += 1
        resp = SearchResponse.model_validate_json(cached)
        resp = resp.model_copy(update={"request_id": req.request_id})
        if req.trace:
            resp.trace = Trace(lanes=[TraceLane(lane=t.lane, ms=0.0, items=t.items, degraded=t.degraded,
                                                cache_hit=True) for t in (resp.trace.lanes if resp.trace
                                                                          else [])],
                               total_ms=round((time.perf_counter() - t0) * 1000, 3))
        else:
            resp.trace = None
        return resp

    def put(self, key: CacheKey, resp: SearchResponse, traces: list[TraceLane]) -> None:
        """Store `resp` with its lane traces (a later hit reports them), dropping the oldest entry if full."""
        stored = resp.model_copy(update={"trace": Trace(lanes=traces)})
        self._entries[key] = stored.model_dump_json(by_alias=True)
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()
