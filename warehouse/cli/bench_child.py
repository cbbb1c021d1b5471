"""Bench phases that run in their own process, so the parent can read each one's peak RSS.

`python -m warehouse.cli.bench_child '<json params>'` runs one phase and prints one JSON document.
Phases: `reindex` (timed runs, optionally appending one event to a session file before each),
`search` (warm latency per mode), `search_access` (auto with access control off and on), `baseline`
(our lexical lanes vs SQLite FTS5 on the same texts), `team_push` / `team_build` (the team lake,
`akw bench --team`).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from warehouse.api import Warehouse
from warehouse.bench import fts5, mutate
from warehouse.bench.stats import percentiles
from warehouse.search.request import search_request

MODES = ("auto", "find_agent", "find_skill", "find_code", "find_knowledge")


def _open(p: dict[str, Any]) -> Warehouse:
    """The bench home over the generated data only: its Claude Code / Codex homes are the data folder's
    (`claude/`, `codex/` beside `dsh/`), never this machine's ~/.claude or ~/.codex."""
    data = Path(p["dsh"]).parent
    return Warehouse.open(p["dsh"], p["autoclaw"], p["home"], data / "claude", data / "codex")


def phase_reindex(p: dict[str, Any]) -> dict[str, Any]:
    """`warmup` untimed + `repeat` timed reindex runs; with `mutate`, one new event goes in before each."""
    wh = _open(p)
    runs = []
    for i in range(p.get("warmup", 0) + p.get("repeat", 1)):
        if p.get("mutate"):
            mutate.append_event(Path(p["mutate"]), tag=f"bench-{i}")
        t0 = time.perf_counter()
        rec = wh.reindex(mode=p.get("mode", "incremental"))
        dt = time.perf_counter() - t0
        build = rec.get("build") or {}
        runs.append({"seconds": round(dt, 3), "outcome": rec["outcome"], "index_rev": rec["index_rev"],
                     "warmup": i < p.get("warmup", 0), "build_s": build.get("build_s"),
                     "models_s": build.get("models_s"), "lexical_s": (build.get("lexical") or {}).get("seconds"),
                     "docs": (build.get("lexical") or {}).get("docs"), "semantic": build.get("semantic"),
                     "changed_units": sum(s["units"]["changed"] for s in rec["extract"]["sources"])})
    timed = [r["seconds"] for r in runs if not r["warmup"]]
    return {"runs": runs, "median_s": round(statistics.median(timed), 3) if timed else None,
            "index_rev": runs[-1]["index_rev"] if runs else None}


def phase_search(p: dict[str, Any]) -> dict[str, Any]:
    """Warm latency per mode over the same queries; warm-up requests use another limit (no cache hits)."""
    wh = _open(p)
    queries = p["queries"]
    _warm_up(wh, queries[: p.get("warmup", 10)])
    out = {mode: _timed(wh, queries, mode=mode) for mode in MODES}
    return {"modes": out, "queries": len(queries), "searches": len(queries) * len(MODES)}


def phase_search_filtered(p: dict[str, Any]) -> dict[str, Any]:
    """`auto` filtered to the workspace with the most documents (agents pass their workspace), warm,
    in a process of its own: its peak RSS is reported apart from the five modes'."""
    wh = _open(p)
    queries = p["queries"]
    filters = _busiest_workspace(wh)  # before the engine opens the generation (another configuration)
    _warm_up(wh, queries[: p.get("warmup", 10)], filters=filters)
    return {**_timed(wh, queries, filters=filters), "filters": filters}


def phase_search_access(p: dict[str, Any]) -> dict[str, Any]:
    """`auto` with access control off and on, interleaved in one process on one engine (issue 16: on
    stays within 10% of off). The principal sees every workspace but the first, the first AutoClaw
    account and the DSH home skills; `on` has hints and the live check, `on_bare` neither (their cost).

    What is measured: every timed request is computed in full by every variant. The queries are
    distinct and warm-up uses another limit, so `off` never answers a timed request from its response
    cache (a scoped search never uses it); `timed_cache_hits` in the result proves it (always 0). The
    principal's view is made in the warm-up, as a long-lived server makes it once per generation."""
    import json as _json

    wh = _open(p)
    ws = [r[0] for r in wh.sql("SELECT workspace_id FROM ak_acl_workspace ORDER BY workspace_id")["rows"]]
    acc = [r[0] for r in wh.sql("SELECT account FROM ak_acl_account ORDER BY account")["rows"]]
    rights = {"workspaces": ws[1:] or ws, "autoclaw_accounts": acc[:1], "skills_roots": ["dsh_home"]}
    on_s = wh.settings.with_value("access.enabled", "true").with_value(
        "access.principals", _json.dumps({"bench@example.com": rights, "other@example.com": {"workspaces": ws}}))
    variants = {"off": wh, "on": Warehouse(wh.paths, on_s, principal="bench@example.com"),
                "on_bare": Warehouse(wh.paths, on_s.with_value("access.hidden_hints", "false")
                                     .with_value("access.live_check", "false"), principal="bench@example.com")}
    for v in variants.values():
        v._engine = wh.engine  # one engine: the generation opens once per process
    queries = p["queries"]
    for v in variants.values():
        _warm_up(v, queries[: p.get("warmup", 10)])
    ms: dict[str, list[float]] = {k: [] for k in variants}
    hits_before = _cache_hits(wh)
    for i, q in enumerate(queries):  # interleaved (load drifts alike), the order rotating (no one warms the others)
        names = list(variants)
        for name in names[i % 3:] + names[:i % 3]:
            v = variants[name]
            t0 = time.perf_counter()
            v.search(search_request(q, limit=10))
            ms[name].append((time.perf_counter() - t0) * 1000)
    out: dict[str, Any] = {name: percentiles(v) for name, v in ms.items()}
    out["on_p95_over_off_p95"] = round(out["on"]["p95_ms"] / max(out["off"]["p95_ms"], 1e-6), 3)
    out["timed_cache_hits"] = _cache_hits(wh) - hits_before
    out["principal"] = {"workspaces": len(rights["workspaces"]), "of_workspaces": len(ws),
                        "autoclaw_accounts": len(rights["autoclaw_accounts"]), "of_accounts": len(acc)}
    return out


def _cache_hits(wh: Warehouse) -> int:
    return wh.engine.cache_hits


def _busiest_workspace(wh: Warehouse) -> dict[str, Any]:
    rows = wh.sql("SELECT coalesce(workspace_id, workspace_path) FROM ak_document_workspace "
                  "ORDER BY documents DESC, ws_no LIMIT 1")["rows"]
    return {"workspaces": [rows[0][0]]} if rows else {}


def _warm_up(wh: Warehouse, queries: list[str], **fields: Any) -> None:
    for q in queries:  # limit 9: the timed requests (limit 10) are never cache hits
        wh.search(search_request(q, limit=9, **fields))


def _timed(wh: Warehouse, queries: list[str], **fields: Any) -> dict[str, Any]:
    """Each query once with `fields` (mode, filters): latency percentiles and how many found nothing."""
    ms, zero = [], 0
    for q in queries:
        t0 = time.perf_counter()
        resp = wh.search(search_request(q, limit=10, **fields))
        ms.append((time.perf_counter() - t0) * 1000)
        zero += not resp["found"]
    return {**percentiles(ms), "not_found": zero}


def phase_baseline(p: dict[str, Any]) -> dict[str, Any]:
    return fts5.compare(Warehouse.open(p["dsh"], p["autoclaw"], p["home"]).paths.generations,
                        Path(p["sqlite"]), p["queries"], k=p.get("k", 10))


def phase_team_push(p: dict[str, Any]) -> dict[str, Any]:
    """Team lake: extract a home and push every unit to the shared DuckLake (fresh writer, fresh catalog)."""
    wh = _open(p)
    wh.team_init(p["catalog"], p["data_path"], p["writer_id"])
    t0 = time.perf_counter()
    doc = wh.team_push()
    return {"seconds": round(time.perf_counter() - t0, 3), "extract_s": doc["duration_s"], "push": doc["push"]}


def phase_team_build(p: dict[str, Any]) -> dict[str, Any]:
    """Team lake: a machine with no sources of its own builds a generation from the catalog's latest snapshot."""
    wh = _open(p)
    wh.team_init(p["catalog"], p["data_path"], p["writer_id"])
    t0 = time.perf_counter()
    rec = wh.reindex()
    build = rec.get("build") or {}
    return {"seconds": round(time.perf_counter() - t0, 3), "outcome": rec["outcome"], "index_rev": rec["index_rev"],
            "snapshot_id": (rec.get("team") or {}).get("snapshot_id"), "build_s": build.get("build_s"),
            "docs": (build.get("lexical") or {}).get("docs")}


PHASES = {"reindex": phase_reindex, "search": phase_search, "search_filtered": phase_search_filtered,
          "search_access": phase_search_access,
          "baseline": phase_baseline, "team_push": phase_team_push, "team_build": phase_team_build}


def main(argv: list[str] | None = None) -> int:
    params = json.loads((argv if argv is not None else sys.argv[1:])[0])
    result = PHASES[params["phase"]](params)
    sys.stdout.write(json.dumps(result, ensure_ascii=False, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
