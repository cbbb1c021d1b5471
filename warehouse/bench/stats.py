"""Latency summaries shared by the bench phases (one P95 rule everywhere: nearest rank)."""

from __future__ import annotations

import math
import statistics


def percentiles(ms: list[float]) -> dict[str, float | int]:
    """n, P50 (median), P95 (nearest rank: the ceil(0.95·n)-th smallest), max and mean, in ms."""
    if not ms:
        return {"n": 0}
    s = sorted(ms)
    p95 = s[max(0, math.ceil(0.95 * len(s)) - 1)]
    return {"n": len(s), "p50_ms": round(statistics.median(s), 3), "p95_ms": round(p95, 3),
            "max_ms": round(s[-1], 3), "mean_ms": round(statistics.fmean(s), 3)}
