"""Golden evaluation: recall@k, MRR, nDCG per slice, mode and language; per-query misses; the trend across
reports/eval-*.json (`Warehouse.reports`). Run: `marimo run notebooks/eval.py` (AKW_REPORTS picks the folder).
"""

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="AKW · Golden evaluation")


@app.cell
def _():
    import os
    from html import escape

    import altair as alt
    import marimo as mo

    from warehouse.api import Warehouse

    wh = Warehouse.open()
    history = wh.reports(os.environ.get("AKW_REPORTS", "reports"))
    evals = history["eval"]
    METRICS = ["recall@1", "recall@3", "recall@10", "mrr", "ndcg@10"]
    return METRICS, alt, escape, evals, history, mo


@app.cell
def _(mo):
    lang_pick = mo.ui.radio(options={"RU": "ru", "EN": "en"}, value="RU", inline=True, label="Язык / Language")
    lang_pick
    return (lang_pick,)


@app.cell
def _(evals, history, lang_pick, mo):
    L = {"ru": {"title": "Оценка на золотом наборе", "none": "Отчётов eval нет: запустите `akw eval`.",
                "slices": "По срезам, языкам и видам", "queries": "Запросы (промахи выделены)",
                "trend": "Динамика по отчётам", "file": "Отчёт"},
         "en": {"title": "Golden evaluation", "none": "No eval reports: run `akw eval`.",
                "slices": "Per slice, language and kind", "queries": "Queries (misses highlighted)",
                "trend": "Trend across reports", "file": "Report"}}[lang_pick.value]
    pick = mo.ui.dropdown(options=[e["file"] for e in evals], value=evals[-1]["file"] if evals else None,
                          label=L["file"])
    mo.vstack([mo.md(f"## {L['title']}\n\n`{history['folder']}` · {len(evals)} eval report(s)"),
               pick if evals else mo.callout(mo.md(L["none"]), kind="warn")])  # Markdown: `akw eval` as code
    return L, pick


@app.cell
def _(METRICS, evals, pick):
    run = next((e for e in evals if e["file"] == pick.value), None)
    rows = []

    def metric(q, m):
        """A query's metric: the report keeps them under `metrics` (older reports at the top level)."""
        return (q.get("metrics") or {}).get(m, q.get(m))

    def three(v):
        return round(v, 3) if isinstance(v, float) else v

    if run:
        rows.append({"group": "overall", "name": "overall", "n": run["overall"].get("n"),
                     **{m: three(run["overall"].get(m)) for m in METRICS}})
        for _group in ("by_slice", "by_lang", "by_kind"):
            for _name, _s in sorted(run[_group].items()):
                rows.append({"group": _group[3:], "name": _name, "n": _s.get("n"),
                             **{m: three(_s.get(m)) for m in METRICS}})
        by_mode = {}
        for _q in run["queries"]:
            by_mode.setdefault(_q.get("mode") or "auto", []).append(_q)
        for _mode, _qs in sorted(by_mode.items()):
            _vals = {m: [v for q in _qs if (v := metric(q, m)) is not None] for m in METRICS}
            rows.append({"group": "mode", "name": _mode, "n": len(_qs),  # a metric no query has stays empty
                         **{m: (three(sum(v) / len(v)) if v else None) for m, v in _vals.items()}})
    return metric, rows, run


@app.cell
def _(L, METRICS, alt, mo, rows, run):
    _out = mo.md("")
    if run:
        _long = [{"name": f"{r['group']}:{r['name']}", "metric": m, "value": r[m]} for r in rows for m in
                 ("recall@3", "mrr", "ndcg@10") if r[m] is not None]
        _chart = alt.Chart(alt.Data(values=_long)).mark_bar().encode(
            y=alt.Y("name:N", sort=None, title=None), x=alt.X("value:Q", scale=alt.Scale(domain=[0, 1])),
            color="metric:N", yOffset="metric:N", tooltip=["name:N", "metric:N", "value:Q"]).properties(width=520)
        _out = mo.vstack([mo.md(f"### {L['slices']}"), mo.ui.table(rows, selection=None, page_size=40), _chart,
                          mo.md(f"_{'passed' if run['passed'] else 'FAILED'}_ · " + ", ".join(METRICS))])
    _out
    return


@app.cell
def _(L, escape, metric, mo, run):
    _out = mo.md("")
    if run:
        _cells = ["id", "kind", "lang", "slice", "mode", "found", "first_hit", "recall@3", "mrr", "ms"]
        _head = "".join(f"<th>{c}</th>" for c in _cells)
        _body = []
        for _q in run["queries"]:
            _vals = {c: (metric(_q, c) if c in ("recall@3", "mrr") else _q.get(c)) for c in _cells}
            _miss = _q.get("status") == "ok" and (not _q.get("found") or (_vals["recall@3"] or 0) < 1)
            _style = ' class="miss" style="background:#fde2e2"' if _miss else ""
            _body.append(f"<tr{_style}>" + "".join(f"<td>{escape('' if _vals[c] is None else str(_vals[c]))}</td>"
                                                  for c in _cells) + "</tr>")
        _out = mo.vstack([mo.md(f"### {L['queries']}"),
                          mo.Html(f'<table id="eval-queries"><tr>{_head}</tr>{"".join(_body)}</table>')])
    _out
    return


@app.cell
def _(L, alt, evals, mo):
    _pts = [{"report": i + 1, "index_rev": e["index_rev"], "metric": m, "value": e["overall"].get(m)}
            for i, e in enumerate(evals) for m in ("recall@3", "mrr", "ndcg@10") if e["overall"].get(m) is not None]
    _out = mo.md("")
    if _pts:
        _out = mo.vstack([mo.md(f"### {L['trend']}"), alt.Chart(alt.Data(values=_pts)).mark_line(point=True).encode(
            x=alt.X("report:O", title="report #"), y=alt.Y("value:Q", scale=alt.Scale(domain=[0, 1])),
            color="metric:N", tooltip=["index_rev:N", "metric:N", "value:Q"]).properties(width=520)])
    _out
    return


if __name__ == "__main__":
    app.run()
