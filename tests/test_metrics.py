"""IR metrics on hand-made rankings; expected values worked out by hand in the comments."""

from __future__ import annotations

import math

import pytest

from warehouse.evaluation.metrics import (
    dedupe,
    hit_at_k,
    mean,
    ndcg_at_k,
    ranking_metrics,
    recall_at_k,
    reciprocal_rank,
)
from warehouse.evaluation.runner import ranked_keys


def test_mixed_ranking_by_hand() -> None:
    ranked, rel = ["a", "x", "b", "y", "c"], {"a", "b", "c"}
    assert recall_at_k(ranked, rel, 1) == 1.0  # a / min(3, 1)
    assert recall_at_k(ranked, rel, 3) == pytest.approx(2 / 3)  # a, b of 3
    assert recall_at_k(ranked, rel, 10) == 1.0
    assert reciprocal_rank(ranked, rel) == 1.0
    # DCG = 1/log2(2) + 1/log2(4) + 1/log2(6) = 1 + 0.5 + 0.386853 = 1.886853
    # IDCG = 1 + 1/log2(3) + 1/log2(4) = 1 + 0.630930 + 0.5 = 2.130930  → 0.885460
    assert ndcg_at_k(ranked, rel, 10) == pytest.approx(0.885460, abs=1e-6)
    assert ndcg_at_k(ranked, rel, 10) == pytest.approx(
        (1 + 1 / math.log2(4) + 1 / math.log2(6)) / (1 + 1 / math.log2(3) + 1 / math.log2(4)))


def test_late_single_hit() -> None:
    ranked, rel = ["x", "y", "a"], {"a"}
    assert recall_at_k(ranked, rel, 1) == 0.0
    assert recall_at_k(ranked, rel, 3) == 1.0
    assert hit_at_k(ranked, rel, 2) == 0.0 and hit_at_k(ranked, rel, 3) == 1.0
    assert reciprocal_rank(ranked, rel) == pytest.approx(1 / 3)
    assert ndcg_at_k(ranked, rel, 10) == pytest.approx(0.5)  # 1/log2(4) over ideal 1/log2(2)
    assert ndcg_at_k(ranked, rel, 2) == 0.0  # the hit is below the cut


def test_nothing_returned_scores_zero() -> None:
    m = ranking_metrics([], {"a", "b"})
    assert m == {"recall@1": 0.0, "recall@3": 0.0, "recall@10": 0.0, "hit@3": 0.0, "mrr": 0.0, "ndcg@10": 0.0}


def test_recall_is_capped_by_k() -> None:
    rel = {f"r{i}" for i in range(8)}
    ranked = ["r0", "r1", "r2", "x", "r3", "y", "z", "w", "v", "u"]
    assert recall_at_k(ranked, rel, 3) == 1.0  # 3 / min(8, 3): a perfect top 3
    assert recall_at_k(ranked, rel, 10) == pytest.approx(4 / 8)  # 4 / min(8, 10)
    # nDCG@10: hits at ranks 1, 2, 3, 5; ideal has 8 hits at ranks 1..8
    dcg = sum(1 / math.log2(i + 1) for i in (1, 2, 3, 5))
    idcg = sum(1 / math.log2(i + 1) for i in range(1, 9))
    assert ndcg_at_k(ranked, rel, 10) == pytest.approx(dcg / idcg)


def test_perfect_ranking_is_one() -> None:
    m = ranking_metrics(["a", "b", "x"], {"a", "b"})
    assert m["recall@3"] == m["mrr"] == m["ndcg@10"] == m["recall@10"] == 1.0


def test_no_relevant_is_an_error() -> None:
    with pytest.raises(ValueError):
        recall_at_k(["a"], set(), 3)
    with pytest.raises(ValueError):
        ndcg_at_k(["a"], set(), 3)


def test_dedupe_and_mean() -> None:
    assert dedupe(["s2", "s1", "s2", "s3", "s1"]) == ["s2", "s1", "s3"]
    assert mean([]) is None
    assert mean([1.0, 0.0, 0.5]) == 0.5


def test_ranked_keys_dedupes_each_list() -> None:
    resp = {
        "actors": [{"actor_id": "A1", "name": "one"}, {"actor_id": "A2", "name": None}],
        "lanes": {
            "episodes": {"items": [{"session_id": "s1", "event_type": "x"}, {"session_id": "s2", "event_type": "x"},
                                   {"session_id": "s1", "event_type": "y"}]},
            "code": {"items": [{"workspace": "w1", "path": "a.py", "start_line": 1},
                               {"workspace": "w1", "path": "a.py", "start_line": 40},
                               {"workspace": "w2", "path": "a.py", "start_line": 1}]},
            "skills": {"items": [{"name": "k1", "path": "/home/u/r1/k1/SKILL.md"}, {"name": "k1", "path": "/r2/k1"},
                                 {"name": "k2"}]},
        },
    }
    assert [k for k, _ in ranked_keys(resp, "actors")] == ["A1", "A2"]
    assert [k for k, _ in ranked_keys(resp, "episodes")] == ["s1", "s2"]
    assert ranked_keys(resp, "code") == [("w1:a.py", "a.py:1"), ("w2:a.py", "a.py:1")]
    assert ranked_keys(resp, "skills") == [("k1", "r1/k1/SKILL.md"), ("k2", "")]
    assert ranked_keys({"lanes": {"episodes": {"items": []}, "code": {"items": []}}}, "skills") == []
