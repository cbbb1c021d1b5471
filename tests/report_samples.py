"""Small eval/bench report files (the shapes `akw eval` / `akw bench` write) for the report and notebook tests."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

OLDER_BENCH_AT = "2023-11-14T22:13:20+00:00"


def _eval_doc(rev: str, recall3: float) -> dict[str, Any]:
    overall = {"n": 10, "recall@1": recall3 - 0.1, "recall@3": recall3, "recall@10": 1.0, "mrr": recall3 - 0.05,
               "ndcg@10": recall3 - 0.02, "zero_result_rate": 0.0}
    return {"schema": "akw.eval/v1", "index_rev": rev, "passed": True,
            "summary": {"overall": overall, "by_slice": {"synthetic": overall}, "by_lang": {"ru": overall},
                        "by_kind": {}},
            "queries": [{"id": "q1", "kind": "uj1_who", "lang": "ru", "slice": "synthetic", "mode": "auto",
                         "status": "ok", "found": True, "first_hit": 1, "ms": 12.0, "metrics": {"recall@3": 1.0}}]}


def _bench_doc(rev: str, slower_ms: float = 0.0) -> dict[str, Any]:
    modes = {m: {"p50_ms": 30.0 + i + slower_ms, "p95_ms": 40.0 + i + slower_ms, "mean_ms": 31.0, "max_ms": 50.0,
                 "n": 20} for i, m in enumerate(("auto", "find_agent", "find_skill"))}
    return {"schema": "akw.bench/v1", "index_rev": rev, "scale": {"name": "small"}, "search": {"modes": modes},
            "baseline": {"sqlite_fts5": {"fts5_bm25": {"p50_ms": 4.5, "p95_ms": 9.0, "mean_ms": 5.0}}},
            "build": {"cold": {"median_s": 3.2, "peak_rss_mb": 210.0}}, "size": {"generation_bytes": 12_000_000}}


def write_history(folder: Path) -> Path:
    """Two eval reports (the trend rises, the newer one is newer on disk), two bench reports (the older one
    dated by its `finished_at`, the newer one by its file time, as `akw bench` files are today), one torn file."""
    for i, (rev, r3) in enumerate((("ak-0000000000000001", 0.71), ("ak-0000000000000002", 0.86))):
        p = folder / f"eval-{rev}.json"
        p.write_text(json.dumps(_eval_doc(rev, r3)), encoding="utf-8")
        os.utime(p, (1_700_000_000 + i, 1_700_000_000 + i))  # the trend follows file age
    older = {**_bench_doc("ak-0000000000000001", slower_ms=10.0), "finished_at": OLDER_BENCH_AT}
    (folder / "bench-small-ak-0000000000000001.json").write_text(json.dumps(older))  # its own run time
    (folder / "bench-small-ak-0000000000000002.json").write_text(json.dumps(_bench_doc("ak-0000000000000002")))
    (folder / "eval-broken.json").write_text("{not json")  # a torn file is not history
    return folder
