"""Readable `akw eval` output: metric tables per group, empty-answer checks, the misses, the verdict."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

COLS = ("recall@1", "recall@3", "recall@10", "hit@3", "mrr", "ndcg@10", "zero_result_rate")


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def print_eval(console: Console, r: dict[str, Any], misses: int = 25) -> None:
    s = r["summary"]
    t = Table(title=f"golden set: {r['golden']['queries']} queries · index_rev {r['index_rev']}")
    t.add_column("group")
    t.add_column("n", justify="right")
    for c in COLS:
        t.add_column(c.replace("_rate", ""), justify="right")
    rows = [("overall", s["overall"])]
    rows += [(f"kind {k}", v) for k, v in s["by_kind"].items()]
    rows += [(f"lang {k}", v) for k, v in s["by_lang"].items()]
    rows += [(f"slice {k}", v) for k, v in s["by_slice"].items()]
    for name, agg in rows:
        t.add_row(name, str(agg["n"]), *(_fmt(agg.get(c)) for c in COLS), style="bold" if name == "overall" else None)
    console.print(t)
    e = s["empty"]
    console.print(f"empty-answer queries: {e['n']} · false-hit rate (any actor/episode) {_fmt(e['false_hit_rate'])}"
                  f" · any item {_fmt(e['any_item_rate'])}")
    for name, agg in s.get("empty_by_slice", {}).items():
        console.print(f"  slice {name}: {agg['n']} · false-hit rate {_fmt(agg['false_hit_rate'])}"
                      f" · any item {_fmt(agg['any_item_rate'])}")
    sem = r.get("semantic") or {}
    if len(sem.get("modes", [])) > 1:
        st = Table(title="semantic off / on per slice")
        st.add_column("slice")
        for c in ("n", "recall@3", "mrr", "ndcg@10", "zero", "strong", "false hits"):
            st.add_column(c, justify="right")
        for name, per in sem["by_slice"].items():
            for mode in sem["modes"]:
                agg, emp = per.get(mode, {}), per.get("empty", {}).get(mode, {})
                st.add_row(f"{name} · {mode}", str(agg.get("n", 0)), _fmt(agg.get("recall@3")), _fmt(agg.get("mrr")),
                           _fmt(agg.get("ndcg@10")), _fmt(agg.get("zero_result_rate")), _fmt(agg.get("strong_rate")),
                           f"{_fmt(emp.get('false_hit_rate'))} of {emp.get('n', 0)}")
        console.print(st)
        lt = Table(title="per language: recall@3 / MRR / zero")
        lt.add_column("slice · language")
        lt.add_column("n", justify="right")
        for mode in sem["modes"]:
            lt.add_column(mode, justify="right")
        for name, langs in sem.get("by_slice_lang", {}).items():
            for lang, per in langs.items():
                cells = [f"{_fmt(a.get('recall@3'))} / {_fmt(a.get('mrr'))} / {_fmt(a.get('zero_result_rate'))}"
                         for a in (per.get(mode, {}) for mode in sem["modes"])]
                n = next((str(a.get("n", 0)) for a in per.values()), "0")
                if n != "0":  # a language with only empty-answer queries in this slice has nothing to score
                    lt.add_row(f"{name} · {lang}", n, *cells)
        console.print(lt)
    if s["skipped"]:
        reasons = sorted({q["reason"] for q in r["queries"] if q["status"] == "skipped"})
        console.print(f"[yellow]skipped {s['skipped']}[/yellow]: " + "; ".join(reasons))
    bad = [q for q in r["queries"] if q["status"] == "ok" and q.get("target") and q["metrics"]["recall@3"] < 1.0]
    if bad:
        m = Table(title=f"queries below recall@3 = 1 ({len(bad)})")
        for c in ("id", "list", "relevant", "first hit", "recall@3", "top result"):
            m.add_column(c)
        for q in sorted(bad, key=lambda q: (q["metrics"]["recall@3"], q["id"]))[:misses]:
            top = q["top"][0] if q["top"] else None
            m.add_row(q["id"], q["target"], str(q["relevant"]), str(q["first_hit"] or "-"),
                      _fmt(q["metrics"]["recall@3"]),
                      "-" if top is None else f"{'✓' if top['relevant'] else '✗'} {top['label'][:60]}")
        console.print(m)
    if r["passed"]:
        console.print(f"[green]passed[/green] thresholds {r['thresholds']}")
    else:
        console.print("[red]below thresholds[/red]: " + "; ".join(r["failures"]))
    if r.get("report_file"):
        console.print(f"report: {r['report_file']}")
