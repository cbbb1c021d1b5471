"""Budget (§8): never exceeds, snippets before items, exact `dropped`, evidence pruned, errors kept."""

from __future__ import annotations

import pytest

from warehouse.search.budget import apply_budget, estimate_tokens
from warehouse.search.contract import (
    Actor,
    ActorEvidence,
    CodeItem,
    CodeLane,
    EpisodeItem,
    EpisodeLane,
    ErrorItem,
    Fusion,
    Lanes,
    Limits,
    Routing,
    SearchResponse,
    SkillItem,
    SkillLane,
    dump_response,
    invariant_violations,
)

SNIP = "x" * 400  # ~100 tokens each: dropping one saves far more than its `dropped` entry costs


def _resp(query: str = "кто чинил mysql", errors: int = 0) -> SearchResponse:
    """episodes e1..e3, code c1..c2 (with snippets), skill s1, actor A (e1, c2) and actor B (c1 only).

    RRF with weights episodes 1.0 / code 0.4 / skills 0.6, k=60, ranks worst → best:
    c2 (0.4/62), c1 (0.4/61), s1 (0.6/61), e3 (1/63), e2 (1/62), e1 (1/61); actors carry higher scores.
    """
    eps = [EpisodeItem(id=f"e{i}", session_id="s", seq=i, event_type="assistant/message", snippet=SNIP)
           for i in (1, 2, 3)]
    code = [CodeItem(id=f"c{i}", path=f"src/m{i}.py", start_line=1, snippet=SNIP) for i in (1, 2)]
    return SearchResponse(
        query=query,
        routing=Routing(intent="find_agent", lanes=["episodes", "code", "skills"], confidence=0.86, reason="r"),
        lanes=Lanes(episodes=EpisodeLane(index_rev="ep-1", items=eps),
                    code=CodeLane(index_rev="code-1", capability="full", items=code),
                    skills=SkillLane(index_rev="sk-1", items=[SkillItem(name="s1")])),
        actors=[Actor(actor_id="A", source="harness", score=0.05,
                      evidence=[ActorEvidence(lane="episodes", id="e1"), ActorEvidence(lane="code", id="c2")]),
                Actor(actor_id="B", source="harness", score=0.04, evidence=[ActorEvidence(lane="code", id="c1")])],
        fusion=Fusion(weights={"episodes": 1.0, "code": 0.4, "skills": 0.6}),
        limits=Limits(requested=10, returned=6),
        errors=[ErrorItem(code="KNOWLEDGE_SOURCE_UNAVAILABLE", lane="code", message=f"err {i}") for i in range(errors)],
    )


def _tokens(resp: SearchResponse) -> int:
    return estimate_tokens(dump_response(resp))


def _dropped(resp: SearchResponse) -> list[tuple[str, str, str]]:
    return [(d.lane, i, d.what) for d in resp.limits.dropped for i in d.ids]


def test_estimate_tokens_is_utf8_bytes_over_4() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1 and estimate_tokens("abcde") == 2
    assert estimate_tokens("кто") == 2  # 6 bytes


def test_nothing_dropped_when_it_fits() -> None:
    resp = _resp()
    out = apply_budget(resp, 20000)
    assert out.limits.truncated is False and out.limits.dropped == []
    assert out.limits.budget is not None and out.limits.budget.max_tokens == 20000
    assert out.limits.budget.used_tokens == _tokens(out)
    assert out.model_copy(update={"limits": resp.limits}) == resp
    assert resp.limits.budget is None  # input untouched


def test_snippets_go_first_from_the_lowest_rank() -> None:
    full = _tokens(apply_budget(_resp(), 20000))
    out = apply_budget(_resp(), full - 200)  # two snippet drops save ~170 tokens, three ~260
    assert _dropped(out) == [("code", "c2", "snippet"), ("code", "c1", "snippet"), ("episodes", "e3", "snippet")]
    assert out.limits.truncated is True and out.limits.returned == 6
    assert [i.snippet is None for i in out.lanes.episodes.items] == [False, False, True]
    assert _tokens(out) <= full - 200 and out.limits.budget.used_tokens == _tokens(out)


def test_items_dropped_from_the_end_and_evidence_pruned() -> None:
    no_snippets = _resp()
    for item in [*no_snippets.lanes.episodes.items, *no_snippets.lanes.code.items]:
        item.snippet = None
    base = _tokens(apply_budget(no_snippets, 20000))
    order = {"episodes": ["e1", "e2", "e3"], "code": ["c1", "c2"]}
    saw_item_drop = saw_b_drop = False
    for budget in range(base - 160, base + 400, 6):
        out = apply_budget(_resp(), budget)
        drops = _dropped(out)
        assert _tokens(out) <= budget or any(w.code == "KNOWLEDGE_BUDGET_EXCEEDED" for w in out.warnings)
        kept = {"episodes": [i.id for i in out.lanes.episodes.items], "code": [i.id for i in out.lanes.code.items]}
        if any(what == "item" and lane != "actors" for lane, _, what in drops):
            saw_item_drop = True
            # snippets go first: once an item is dropped, no remaining item still carries a snippet
            assert all(i.snippet is None for i in [*out.lanes.episodes.items, *out.lanes.code.items])
        for lane, ids in kept.items():  # items leave from the end: what stays is a prefix of the ranking
            assert ids == order[lane][: len(ids)]
        if ("code", "c1", "item") in drops:  # B's only evidence is gone, so B goes too
            saw_b_drop = True
            assert ("actors", "B", "item") in drops and [a.actor_id for a in out.actors] in (["A"], [])
        assert invariant_violations(out) == []
    assert saw_item_drop and saw_b_drop


@pytest.mark.parametrize("max_tokens", [500, 650, 800, 1000, 1300, 1700, 2500])
def test_never_exceeds_and_reports_honestly(max_tokens: int) -> None:
    out = apply_budget(_resp(errors=2), max_tokens)
    assert _tokens(out) <= max_tokens
    assert out.limits.budget is not None and out.limits.budget.used_tokens == _tokens(out)
    assert out.limits.truncated is bool(out.limits.dropped)
    assert [e.message for e in out.errors] == ["err 0", "err 1"]  # errors are never cut
    assert invariant_violations(out) == []
    assert not [w for w in out.warnings if w.code == "KNOWLEDGE_BUDGET_EXCEEDED"]
    kept = {(lane, i.id) for lane, items in (("episodes", out.lanes.episodes.items), ("code", out.lanes.code.items))
            for i in items}
    assert not any((d.lane, i) in kept for d in out.limits.dropped if d.what == "item" for i in d.ids)
    assert apply_budget(out, max_tokens) == out  # idempotent


def test_skeleton_over_budget_warns() -> None:
    out = apply_budget(_resp(query="ю" * 2000), 500)  # the echoed query alone is 1000 tokens
    assert [w.code for w in out.warnings] == ["KNOWLEDGE_BUDGET_EXCEEDED"]
    assert out.limits.truncated is True
    assert out.lanes.episodes.items == [] and out.lanes.code.items == [] and out.actors == []
    assert out.lanes.skills is not None and out.lanes.skills.items == []
    assert {(d.lane, d.what) for d in out.limits.dropped} == {("episodes", "item"), ("code", "item"),
                                                              ("skills", "item"), ("actors", "item")}


def test_over_budget_without_items_is_not_truncated() -> None:
    resp = SearchResponse(query="ю" * 2000, routing=Routing(intent="find_knowledge", lanes=["episodes", "code"],
                                                            confidence=0.5, reason="r"),
                          lanes=Lanes(episodes=EpisodeLane(index_rev="e"), code=CodeLane(index_rev=None)))
    out = apply_budget(resp, 500)
    assert out.limits.truncated is False and out.limits.dropped == []
    assert [w.code for w in out.warnings] == ["KNOWLEDGE_BUDGET_EXCEEDED"]


def test_snippet_matches_equal_a_word_by_word_scan() -> None:
    """The regex prefilter finds exactly what checking every word against every stem finds."""
    import random
    import re

    from warehouse.search.snippets import _matches, _stem

    def slow(text: str, terms: list[str]) -> list[tuple[int, int]]:
        stems = [_stem(t) for t in dict.fromkeys(t.strip() for t in terms) if t]
        out = []
        for m in re.finditer(r"\w+", text.lower()):
            w = m.group(0)
            out += [(m.start(), i) for i, s in enumerate(stems)
                    if w.startswith(s) or (len(s) > len(w) >= 4 and s.startswith(w))]
        return out

    rnd = random.Random(5)
    vocab = ["migrate", "migration", "мигрировал", "миграция", "db", "db-01", "176.99.5.35", "nginx", "a.b",
             "restore", "restored", "рут", "root", "x", "ёлка", "Ёлки", "mysql", "my", "(paren", "c++", "iya.ru"]
    for _ in range(300):
        text = " ".join(rnd.choice(vocab) + rnd.choice(["", ".", ",", "!", "_x", "ing"]) for _ in range(40))
        terms = [*rnd.sample(vocab, 4), " ", ""]
        assert _matches(text, terms) == slow(text, terms), (text, terms)
