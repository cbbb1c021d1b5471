"""Readable `akw bench` output: build timings, search latency per mode, baseline, sizes, machine."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


def _mb(b: int) -> str:
    return f"{b / 2**20:.1f} MB"


def print_bench(console: Console, r: dict[str, Any]) -> None:
    m, b = r["machine"], r["build"]
    console.print(f"[bold]bench {r['scale']['name']}[/bold] · index_rev {r['index_rev']} · {m['cores']} cores, "
                  f"{m['ram_gb']} GB RAM, Python {m['python']}, DuckDB {m['duckdb']}, load {m['loadavg_at_start']}")
    t = Table(title="build (seconds, median)")
    for c in ("phase", "median s", "runs", "peak RSS MB"):
        t.add_column(c)
    t.add_row("cold extract+build", str(b["cold"]["median_s"]), str(len(b["cold"]["runs"])),
              str(b["cold"]["peak_rss_mb"]))
    for key, name in (("noop", "no-op rerun"), ("one_changed_session", "one changed session")):
        if key not in b:  # --only team
            continue
        timed = [x for x in b[key]["runs"] if not x["warmup"]]
        t.add_row(name, str(b[key]["median_s"]), str(len(timed)), str(b[key]["peak_rss_mb"]))
    console.print(t)
    if r.get("only") == "team":
        _print_team(console, r)
        return
    s = Table(title=f"search latency, warm ({r['search']['queries']} queries per mode, "
                    f"peak RSS {r['search']['peak_rss_mb']} MB)")
    for c in ("mode", "p50 ms", "p95 ms", "max ms", "not found"):
        s.add_column(c)
    for mode, v in r["search"]["modes"].items():
        s.add_row(mode, *(f"{v[k]:.1f}" for k in ("p50_ms", "p95_ms", "max_ms")), str(v["not_found"]))
    v = r["search"].get("filtered")
    if v:
        s.add_row(f"auto, one workspace (own process, peak RSS {v['peak_rss_mb']} MB)",
                  *(f"{v[k]:.1f}" for k in ("p50_ms", "p95_ms", "max_ms")), str(v["not_found"]))
    a = r["search"].get("access")
    if a:
        for name, label in (("off", "auto, access off"), ("on", "auto, access on (hints, live check)"),
                            ("on_bare", "auto, access on (no hints, no live check)")):
            s.add_row(f"{label} (own process)", *(f"{a[name][k]:.1f}" for k in ("p50_ms", "p95_ms", "max_ms")), "")
    console.print(s)
    if a:
        console.print(f"access on / off p95: {a['on_p95_over_off_p95']}x (issue 16: within 1.10x)")
    sem = r.get("semantic") or {}
    if "search" in sem:
        vb = sem["build"]["vectors"] or {}
        title = (f"semantic on: search latency, warm (peak RSS {sem['search']['peak_rss_mb']} MB); cold build "
                 f"{sem['build']['seconds']} s (peak RSS {sem['build']['peak_rss_mb']} MB), "
                 f"{vb.get('embedded')} units embedded in {vb.get('embed_s')} s = {vb.get('texts_per_s')}/s; "
                 f"one changed session {sem['one_changed_session']['seconds']} s, "
                 f"{(sem['one_changed_session']['vectors'] or {}).get('embedded')} embedded")
        console.print(_modes_table(title, sem["search"]["modes"]))
    elif sem.get("skipped"):
        console.print(f"semantic: skipped ({sem['skipped']})")
    _print_mixed(console, r.get("mixed_sources") or {})
    _print_mcp(console, r.get("mcp") or {})
    f = r["baseline"]["sqlite_fts5"]
    console.print(f"baseline per lane (k={f['k']}): ours lexical p50 {f['ours_lexical']['p50_ms']} ms vs FTS5 bm25 "
                  f"p50 {f['fts5_bm25']['p50_ms']} ms (ours/FTS5 {f['ratio_p50_ours_over_fts5']}x, p95 "
                  f"{f['ratio_p95_ours_over_fts5']}x); top-{f['k']} overlap {f['overlap_at_k_mean']}; full search "
                  f"auto p50 / FTS5 p50 = {r['baseline']['search_auto_p50_over_fts5_p50']}x; {r['baseline']['bm25s']}")
    z = r["size"]
    console.print(f"size: generation {_mb(z['generation_bytes'])}, lake {_mb(z['lake_bytes'])}, home "
                  f"{_mb(z['home_bytes'])}; FTS5 db {_mb(f['fts5_db_bytes'])}")
    _print_team(console, r)


def _print_mixed(console: Console, m: dict[str, Any]) -> None:
    """DSH + AutoClaw + Claude Code + Codex beside the DSH-only run (issue 26)."""
    if "search" not in m:
        if m.get("skipped"):
            console.print(f"mixed sources: skipped ({m['skipped']})")
        return
    d, b = m["data"], m["build"]
    console.print(_modes_table(f"mixed sources (DSH {d['dsh_sessions']} sessions + Claude Code "
                               f"{d['claude_code_files']} files + Codex {d['codex_files']} files): cold build "
                               f"{b['seconds']} s, {b['docs']} docs (peak RSS {b['peak_rss_mb']} MB); search latency, "
                               "warm", m["search"]["modes"]))


def _modes_table(title: str, modes: dict[str, Any]) -> Table:
    """Search latency per mode of one run (p50/p95/max, queries not found)."""
    t = Table(title=title)
    for c in ("mode", "p50 ms", "p95 ms", "max ms", "not found"):
        t.add_column(c)
    for mode, v in modes.items():
        t.add_row(mode, *(f"{v[k]:.1f}" for k in ("p50_ms", "p95_ms", "max_ms")), str(v["not_found"]))
    return t


def _print_team(console: Console, r: dict[str, Any]) -> None:
    t = r.get("team")
    if t:
        pu, bd = t["push"], t["build_from_snapshot"]
        console.print(f"team lake: push {pu['units_pushed']} units in {pu['duration_s']} s "
                      f"({pu['units_per_s']} units/s, {pu['mb_per_s']} MB/s, {pu['commits']} commits); "
                      f"build from snapshot {bd['snapshot_id']} {bd['seconds']} s vs local cold build "
                      f"{t['local_cold_build_s']} s; data path {_mb(t['data_path_bytes'])}",
                      markup=False, highlight=False)
    if r.get("report_file"):
        console.print(f"report: {r['report_file']} ({r['duration_s']} s)")


def _print_mcp(console: Console, m: dict[str, Any]) -> None:
    if m.get("skipped"):
        console.print(f"MCP server: skipped ({m['skipped']})")
        return
    if not m:
        return
    lat, half = m["latency"], m["second_half"]
    console.print(f"MCP server ({m['searches']} knowledge_search calls, one stdio process, {m['glibc_tunables']}): "
                  f"p50 {lat['p50_ms']} ms, p95 {lat['p95_ms']} ms, max {lat['max_ms']} ms (second half p50 "
                  f"{half['p50_ms']} / p95 {half['p95_ms']}); server RSS {m['rss_start'].get('rss_mb')} → "
                  f"{m['rss_end'].get('rss_mb')} MB, peak {m['rss_end'].get('peak_rss_mb')} MB; errors {m['errors']}, "
                  f"not found {m['not_found']}", markup=False, highlight=False)
