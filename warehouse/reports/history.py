"""The report files under reports/ (`akw eval`, `akw bench`, `akw quality`) as a history, oldest first."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

METRICS = ("recall@1", "recall@3", "recall@10", "mrr", "ndcg@10", "zero_result_rate")
RUN_TIME_FIELDS = ("finished_at", "generated_at", "started_at")  # the first a report file holds is its run time


def _load(folder: Path, pattern: str) -> list[tuple[Path, dict[str, Any]]]:
    out = []
    for p in sorted(folder.glob(pattern), key=lambda p: (p.stat().st_mtime, p.name)):
        try:
            doc = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a half-written or foreign file is not history
        if isinstance(doc, dict):
            out.append((p, doc))
    return out


def run_date(path: Path, doc: dict[str, Any]) -> tuple[str, str]:
    """When the run happened, as (ISO UTC time, where it came from): the report's own time field, else the
    file's modification time (`akw bench` writes the file at the end of the run; a copied or checked-out
    file carries the time of the copy, hence the `file` marker)."""
    for key in RUN_TIME_FIELDS:
        if isinstance(doc.get(key), str) and doc[key]:
            return doc[key], "report"
    stamp = datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat(timespec="seconds")
    return stamp, "file"


def evals(folder: Path) -> list[dict[str, Any]]:
    """Golden-set runs: overall metrics and per slice / language / kind, plus the per-query table."""
    rows = []
    for p, d in _load(folder, "eval-*.json"):
        s = d.get("summary") or {}
        rows.append({"file": p.name, "index_rev": d.get("index_rev"), "passed": d.get("passed"),
                     "overall": {m: (s.get("overall") or {}).get(m) for m in ("n", *METRICS)},
                     "by_slice": s.get("by_slice") or {}, "by_lang": s.get("by_lang") or {},
                     "by_kind": s.get("by_kind") or {},
                     "queries": [{k: q.get(k) for k in ("id", "kind", "lang", "slice", "mode", "status", "found",
                                                       "first_hit", "ms")} | (q.get("metrics") or {})
                                 for q in d.get("queries") or []]})
    return rows


def benches(folder: Path) -> list[dict[str, Any]]:
    """Benchmark runs, oldest first by run date: latency per mode (ours and the SQLite FTS5 baseline), build
    times, memory, size."""
    rows = []
    for p, d in _load(folder, "bench-*.json"):
        base = d.get("baseline") or {}
        fts5 = (base.get("sqlite_fts5") or {})
        build = d.get("build") or {}
        date, date_from = run_date(p, d)
        rows.append({"file": p.name, "index_rev": d.get("index_rev"), "scale": (d.get("scale") or {}).get("name"),
                     "date": date, "date_from": date_from,
                     "modes": {m: {k: v.get(k) for k in ("p50_ms", "p95_ms", "mean_ms", "max_ms", "n")}
                               for m, v in ((d.get("search") or {}).get("modes") or {}).items()},
                     "fts5": {k: (fts5.get("fts5_bm25") or {}).get(k) for k in ("p50_ms", "p95_ms", "mean_ms")},
                     "ours_lexical": {k: (fts5.get("ours_lexical") or {}).get(k) for k in ("p50_ms", "p95_ms")},
                     "build": {k: {"median_s": (v or {}).get("median_s"), "peak_rss_mb": (v or {}).get("peak_rss_mb")}
                               for k, v in build.items() if isinstance(v, dict)},
                     "size": d.get("size") or {}})
    return sorted(rows, key=lambda r: r["date"])  # oldest first, like the other histories


def qualities(folder: Path) -> list[dict[str, Any]]:
    return [{"file": p.name, "index_rev": d.get("index_rev"), "success": d.get("success"),
             "statistics": d.get("statistics"), "failed": d.get("failed") or []}
            for p, d in _load(folder, "quality-*.json")]


def history(folder: Path) -> dict[str, Any]:
    return {"folder": str(folder), "eval": evals(folder), "bench": benches(folder), "quality": qualities(folder)}
