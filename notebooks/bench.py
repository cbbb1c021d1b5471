"""Benchmarks: search latency per mode (P50, P95, max) against the SQLite FTS5 baseline, build times, memory and
size across reports/bench-*.json (`Warehouse.reports`), newest run first, each run labelled with its date.
Run: `marimo run notebooks/bench.py` (AKW_REPORTS picks the folder).
"""

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="AKW · Benchmarks")


@app.cell
def _():
    import os

    import altair as alt
    import marimo as mo

    from warehouse.api import Warehouse

    wh = Warehouse.open()
    history = wh.reports(os.environ.get("AKW_REPORTS", "reports"))
    benches = sorted((b for b in history["bench"] if b["modes"]), key=lambda b: b["date"], reverse=True)
    return alt, benches, history, mo


@app.cell
def _(mo):
    lang_pick = mo.ui.radio(options={"RU": "ru", "EN": "en"}, value="RU", inline=True, label="Язык / Language")
    lang_pick
    return (lang_pick,)


@app.cell
def _(benches, history, lang_pick, mo):
    L = {"ru": {"title": "Бенчмарки", "none": "Отчётов bench нет: запустите `akw bench --scale 100k`.",
                "latency": "Задержка поиска по режимам: полоса P50–P95, точка P50, чёрточка максимум",
                "build": "Время сборки (медиана, с)", "rss": "Пиковая память (МБ)", "size": "Размер (МБ)",
                "scale": "Масштаб", "runs": "Последних запусков", "newest": "новейший",
                "file_time": "время файла", "table": "P50 / P95 по режимам, новейшие сверху"},
         "en": {"title": "Benchmarks", "none": "No bench reports: run `akw bench --scale 100k`.",
                "latency": "Search latency per mode: bar P50–P95, dot P50, tick max",
                "build": "Build time (median, s)", "rss": "Peak memory (MB)", "size": "Size (MB)",
                "scale": "Scale", "runs": "Newest runs", "newest": "newest", "file_time": "file time",
                "table": "P50 / P95 per mode, newest first"}}[lang_pick.value]
    _newest = f" · {L['newest']}: {benches[0]['date'][:16].replace('T', ' ')}" if benches else ""
    mo.vstack([mo.md(f"## {L['title']}\n\n`{history['folder']}` · {len(benches)} bench report(s){_newest}"),
               mo.md("") if benches else mo.callout(mo.md(L["none"]), kind="warn")])
    return (L,)


@app.cell
def _(L, benches, mo):
    _scales = list(dict.fromkeys(b["scale"] or "?" for b in benches))
    scale_pick = mo.ui.dropdown(options=_scales or ["—"], value=(_scales or ["—"])[0], label=L["scale"])
    runs_pick = mo.ui.slider(1, 12, value=4, label=L["runs"], show_value=True)
    mo.hstack([scale_pick, runs_pick], justify="start") if benches else mo.md("")
    return runs_pick, scale_pick


@app.cell
def _(L, benches, runs_pick, scale_pick):
    def run_label(b):
        """What a panel is called: when it ran (marked when only the file's time is known), scale, index."""
        when = b["date"][:16].replace("T", " ") + (f" ({L['file_time']})" if b["date_from"] == "file" else "")
        return f"{when} · {b['scale']} · {b['index_rev']}"

    shown = [b for b in benches if (b["scale"] or "?") == scale_pick.value][:runs_pick.value]
    labels = [run_label(b) for b in shown]  # newest first: the facet and axis order
    return labels, run_label, shown


@app.cell
def _(L, alt, labels, mo, run_label, shown):
    rows = []
    for _b in shown:
        for _m, _v in sorted(_b["modes"].items()):
            rows.append({"run": run_label(_b), "who": f"ours · {_m}", **_v})
        if _b["fts5"].get("p50_ms") is not None:
            rows.append({"run": run_label(_b), "who": "SQLite FTS5", **_b["fts5"], "max_ms": None})
    for _r in rows:
        _r["p50_p95"] = f"P50 {_r['p50_ms']:.1f} · P95 {_r['p95_ms']:.1f} ms" if _r.get("p95_ms") else ""
        _r["label_at"] = max(_r.get("p95_ms") or 0, _r.get("max_ms") or 0)  # the text right of the max tick
    _out = mo.md("")
    if rows:
        _y = alt.Y("who:N", title=None)
        _chart = alt.layer(
            alt.Chart().mark_rule(size=6, color="#3b6ea5").encode(x=alt.X("p50_ms:Q", title="ms"), x2="p95_ms:Q",
                                                                  y=_y),
            alt.Chart().mark_tick(color="#c23b3b").encode(x="max_ms:Q", y=_y),
            alt.Chart().mark_point(color="#222", filled=True).encode(
                x="p50_ms:Q", y=_y, tooltip=["who:N", "p50_ms:Q", "p95_ms:Q", "max_ms:Q"]),
            alt.Chart().mark_text(align="left", dx=6, fontSize=11).encode(x="label_at:Q", y=_y, text="p50_p95:N"),
            data=alt.Data(values=rows)).properties(width=460).facet(
                row=alt.Row("run:N", sort=labels, title=None,
                            header=alt.Header(labelAngle=0, labelAlign="left", labelOrient="top", labelFontSize=12,
                                              labelFontWeight="bold")))
        _table = [{"run": _r["run"], "mode": _r["who"], "P50 ms": _r["p50_ms"], "P95 ms": _r["p95_ms"],
                   "max ms": _r.get("max_ms")} for _r in rows]
        _out = mo.vstack([mo.md(f"### {L['latency']}"), _chart, mo.md(f"#### {L['table']}"),
                          mo.ui.table(_table, selection=None, page_size=20)])
    _out
    return (rows,)


@app.cell
def _(L, alt, labels, mo, run_label, shown):
    _build = [{"run": run_label(b), "kind": k, "seconds": v.get("median_s"), "peak_rss_mb": v.get("peak_rss_mb")}
              for b in shown for k, v in b["build"].items() if v.get("median_s") is not None]
    _size = [{"run": run_label(b), "what": k, "mb": round(v / 1e6, 1)}
             for b in shown for k, v in b["size"].items() if isinstance(v, int | float)]
    _y = alt.Y("run:N", sort=labels, title=None, axis=alt.Axis(labelLimit=360))
    _out = mo.md("")
    if _build:
        _out = mo.vstack([
            mo.md(f"### {L['build']}"),
            alt.Chart(alt.Data(values=_build)).mark_bar().encode(x="seconds:Q", y=_y, color="kind:N",
                                                                 yOffset="kind:N"),
            mo.md(f"### {L['rss']}"),
            alt.Chart(alt.Data(values=_build)).mark_bar().encode(x="peak_rss_mb:Q", y=_y, color="kind:N",
                                                                 yOffset="kind:N"),
            mo.md(f"### {L['size']}"),
            alt.Chart(alt.Data(values=_size)).mark_bar().encode(x="mb:Q", y=_y, color="what:N", yOffset="what:N"),
        ])
    _out
    return


if __name__ == "__main__":
    app.run()
