"""Ranking metrics with binary relevance: recall@k, hit@k, reciprocal rank, nDCG@k.

`recall_at_k` is capped: |relevant ∩ top-k| / min(|relevant|, k), so a query with eight
right answers can still score 1.0 at k=3 (the top three are all right) — plain recall would
punish a perfect ranking for the size of the answer set. `hit_at_k` (any right answer in the
top k) is reported beside it because it is what most "top-k recall" figures mean.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence


def dedupe(items: Iterable[str]) -> list[str]:
    """Keep the first occurrence of each item, in order (one episode per session, one path per file)."""
    seen: set[str] = set()
    out: list[str] = []
    for it in items:
        if it not in seen:
            seen.add(it)
            out.append(it)
    return out


def recall_at_k(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    if not relevant:
        raise ValueError("recall needs at least one relevant item")
    found = sum(1 for it in ranked[:k] if it in relevant)
    return found / min(len(relevant), k)


def hit_at_k(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    return 1.0 if any(it in relevant for it in ranked[:k]) else 0.0


def reciprocal_rank(ranked: Sequence[str], relevant: set[str]) -> float:
    """1/rank of the first relevant item; 0 when none is returned."""
    for i, it in enumerate(ranked, 1):
        if it in relevant:
            return 1.0 / i
    return 0.0


def ndcg_at_k(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """Binary-gain nDCG: DCG = Σ rel_i / log2(i + 1) over the top k; ideal puts min(|rel|, k) hits first."""
    if not relevant:
        raise ValueError("nDCG needs at least one relevant item")
    dcg = sum(1.0 / math.log2(i + 1) for i, it in enumerate(ranked[:k], 1) if it in relevant)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(relevant), k) + 1))
    return dcg / ideal


def ranking_metrics(ranked: Sequence[str], relevant: set[str]) -> dict[str, float]:
    """Every per-query metric the eval report carries, rounded for stable JSON."""
    m = {
        "recall@1": recall_at_k(ranked, relevant, 1),
        "recall@3": recall_at_k(ranked, relevant, 3),
        "recall@10": recall_at_k(ranked, relevant, 10),
        "hit@3": hit_at_k(ranked, relevant, 3),
        "mrr": reciprocal_rank(ranked, relevant),
        "ndcg@10": ndcg_at_k(ranked, relevant, 10),
    }
    return {k: round(v, 6) for k, v in m.items()}


def mean(values: Iterable[float]) -> float | None:
    vals = list(values)
    return round(statistics.fmean(vals), 6) if vals else None
