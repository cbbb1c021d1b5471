"""Token budget of a `knowledge_search` response (contract 000 §8): a hard cap on the response text.

Measured on the exact text `dump_response` prints. What goes first: snippets, from the
lowest-ranked item upwards; then whole items from the end (lanes and actors together). An
actor loses evidence that points at a dropped item, and an actor left with no evidence is
dropped too (an unsupported claim is worse than none). Errors and warnings are never cut.
`limits.dropped` lists exactly what is missing, grouped per (lane, what): an item still
present without its snippet is `what="snippet"`, a removed one `what="item"`. The smallest
number of drops that fits is found by binary search over the drop sequence, so a response
is serialised O(log n) times, not once per drop.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from warehouse.core.errors import Code
from warehouse.search.contract import LANES, BudgetUse, SearchResponse, dumps, response_dict
from warehouse.search.messages import Lang, msg

ACTORS = "actors"
_PRIORITY = {**{lane: i for i, lane in enumerate(LANES)}, ACTORS: len(LANES)}


def estimate_tokens(text: str) -> int:
    """ceil(UTF-8 bytes / 4): a tokenizer-free, deterministic estimate.

    About 4 bytes per token holds for English/JSON; Russian costs 2 bytes per letter, so a
    Cyrillic text counts ~2 characters per token, which errs on the safe (larger) side.
    """
    return math.ceil(len(text.encode("utf-8")) / 4)


def _key(lane: str, item: dict[str, Any]) -> str:
    if lane == "skills":
        return item.get("id") or item["name"]
    return item["id"]


def _rank(d: dict[str, Any]) -> list[tuple[str, str]]:
    """(lane, id) best first: RRF of §7 from lane positions and fusion weights, then lane priority.

    Item `score`s are not compared across lanes (§4: no common score); an actor ranks by its
    own aggregate score, or by its best evidence when it has none.
    """
    k = d["fusion"]["k"]
    weights = d["fusion"].get("weights") or {}
    scored: dict[tuple[str, str], tuple[float, int, int]] = {}
    for lane in LANES:
        for pos, item in enumerate((d["lanes"].get(lane) or {}).get("items", [])):
            score = float(weights.get(lane, 0.0)) / (k + pos + 1)
            scored[(lane, _key(lane, item))] = (score, _PRIORITY[lane], pos)
    for pos, actor in enumerate(d.get("actors", [])):
        score = actor.get("score")
        if score is None:
            score = max((scored.get((e["lane"], e["id"]), (0.0,))[0] for e in actor["evidence"]), default=0.0)
        scored[(ACTORS, actor["actor_id"])] = (float(score), _PRIORITY[ACTORS], pos)
    return sorted(scored, key=lambda key: (-scored[key][0], scored[key][1], scored[key][2]))


class _Trimmer:
    """Drops parts of the response dict in place and records what it dropped, in order."""

    def __init__(self, d: dict[str, Any]) -> None:
        self.d = d
        self.dropped: list[tuple[str, str, str]] = []  # (lane, id, what)

    def _items(self, lane: str) -> list[dict[str, Any]]:
        return (self.d["lanes"].get(lane) or {}).get("items", []) if lane != ACTORS else self.d.get("actors", [])

    def _find(self, lane: str, key: str) -> dict[str, Any] | None:
        field = "actor_id" if lane == ACTORS else None
        for item in self._items(lane):
            if (item[field] if field else _key(lane, item)) == key:
                return item
        return None

    def drop_snippet(self, lane: str, key: str) -> None:
        item = self._find(lane, key) if lane != ACTORS else None
        if item is not None and item.get("snippet") is not None:
            del item["snippet"]
            self.dropped.append((lane, key, "snippet"))

    def drop_item(self, lane: str, key: str) -> None:
        item = self._find(lane, key)
        if item is None:
            return
        self._items(lane).remove(item)
        self.dropped = [x for x in self.dropped if (x[0], x[1]) != (lane, key)]
        self.dropped.append((lane, key, "item"))
        if lane != ACTORS:
            self._prune_evidence(lane, key)

    def _prune_evidence(self, lane: str, key: str) -> None:
        for actor in list(self.d.get("actors", [])):
            kept = [e for e in actor["evidence"] if (e["lane"], e["id"]) != (lane, key)]
            if len(kept) != len(actor["evidence"]):
                actor["evidence"] = kept
                if not kept:
                    self.drop_item(ACTORS, actor["actor_id"])

    def grouped(self, with_ids: bool = True) -> list[dict[str, Any]]:
        groups: dict[tuple[str, str], list[str]] = {}
        for lane, key, what in self.dropped:
            groups.setdefault((lane, what), []).append(key)
        out = []
        for (lane, what), ids in groups.items():
            g: dict[str, Any] = {"lane": lane, "what": what, "count": len(ids)}
            if with_ids:
                g["ids"] = ids
            else:
                g["ids"], g["ids_omitted"] = [], True
            out.append(g)
        return out


def _ops(d: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The drop sequence: every snippet worst item first, then every item worst first."""
    order = _rank(d)[::-1]
    snippets = [("snippet", lane, key) for lane, key in order if lane != ACTORS]
    return snippets + [("item", lane, key) for lane, key in order]


def _trimmed(base: dict[str, Any], ops: list[tuple[str, str, str]], n: int, with_ids: bool) -> dict[str, Any]:
    d = copy.deepcopy(base) if n else base  # nothing dropped: `base` itself is the answer
    trim = _Trimmer(d)
    for g in d["limits"].get("dropped") or []:  # a response trimmed before keeps its record
        trim.dropped += [(g["lane"], key, g["what"]) for key in g.get("ids", [])]
    for what, lane, key in ops[:n]:
        (trim.drop_snippet if what == "snippet" else trim.drop_item)(lane, key)
    d["limits"]["dropped"] = trim.grouped(with_ids)
    if trim.dropped:
        d["limits"]["truncated"] = True
        d["limits"]["returned"] = sum(len((d["lanes"].get(lane) or {}).get("items", [])) for lane in LANES)
    return d


def _size(d: dict[str, Any], max_tokens: int) -> int:
    """UTF-8 bytes of the response text with `used_tokens` = max_tokens (a placeholder of known width)."""
    d["limits"]["budget"] = {"max_tokens": max_tokens, "used_tokens": max_tokens}
    return len(dumps(d).encode("utf-8"))


def _fits(d: dict[str, Any], max_tokens: int) -> bool:
    # used_tokens <= max_tokens whenever it fits, so the placeholder is never narrower than the real value
    return math.ceil(_size(d, max_tokens) / 4) <= max_tokens


def apply_budget(resp: SearchResponse, max_tokens: int, lang: Lang = "en") -> SearchResponse:
    """Return a copy of `resp` whose `dump_response` text is at most `max_tokens` (when at all possible);
    `lang`: the answer's language, for the warning when even that is not possible."""
    base = response_dict(resp)  # a fresh dict: trimming it never touches `resp`
    ops = _ops(base)
    fresh = not base["limits"].get("dropped")
    d = _trimmed(base, ops, 0, True)
    size = _size(d, max_tokens)
    if math.ceil(size / 4) <= max_tokens and fresh:  # the common case: it fits as it is
        budget = BudgetUse(max_tokens=max_tokens, used_tokens=_used_tokens(size, max_tokens))
        return resp.model_copy(update={"limits": resp.limits.model_copy(update={"budget": budget})})
    if math.ceil(size / 4) > max_tokens:
        base = copy.deepcopy(d)
        lo, hi = 1, len(ops)  # dropping more never makes the text longer: the first n that fits is minimal
        with_ids = _fits(_trimmed(base, ops, hi, True), max_tokens)
        while lo < hi:
            mid = (lo + hi) // 2
            if _fits(_trimmed(base, ops, mid, with_ids), max_tokens):
                hi = mid
            else:
                lo = mid + 1
        d = _trimmed(base, ops, lo, with_ids)
        if not _fits(d, max_tokens):
            d.setdefault("warnings", []).append({
                "code": str(Code.BUDGET_EXCEEDED), "lane": "all",
                "message": msg("budget.exceeded", lang, max_tokens=max_tokens)})
    d["limits"]["budget"] = {"max_tokens": max_tokens, "used_tokens": used_tokens(d, max_tokens)}
    return SearchResponse.model_validate(d)


def used_tokens(d: dict[str, Any], max_tokens: int) -> int:
    """`limits.budget.used_tokens` of the response document `d` as it stands (a trimmed or compacted one)."""
    return _used_tokens(_size(d, max_tokens), max_tokens)


def _used_tokens(size: int, placeholder: int) -> int:
    """Least fixed point of used = tokens(text containing used): the number's own digits count.

    `size` is the text's byte length with `placeholder` in the used_tokens field; only that
    number's digits change, so the text is not serialised again.
    """
    bare = size - len(str(placeholder))
    used = 0
    for _ in range(10):
        now = math.ceil((bare + len(str(used))) / 4)
        if now == used:
            break
        used = now
    return used
