"""Benchmarks: search latency per mode against the SQLite FTS5 baseline, build times, memory and size across
reports/bench-*.json (`Warehouse.reports`). Run: `marimo run notebooks/bench.py` (AKW_REPORTS picks the folder).
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
    benches = [b for b in history["bench"] if b["modes"]]
    return alt, benches, history, mo


@app.cell
def _(mo):
    lang_pick = mo.ui.radio(options={"RU": "ru", "EN": "en"}, value="RU", inline=True, label="Язык / Language")
    lang_pick
    return (lang_pick,)


@app.cell
def _(benches, history, lang_pick, mo):
    L = {"ru": {"title": "Бенчмарки", "none": "Отчётов bench нет: запустите `akw bench`.",
                "latency": "Задержка поиска: p50–p95 и максимум по режимам, наш индекс и SQLite FTS5",
                "build": "Время сборки (медиана, с)", "rss": "Пиковая память (МБ)", "size": "Размер (МБ)"},
         "en": {"title": "Benchmarks", "none": "No bench reports: run `akw bench`.",
                "latency": "Search latency: p50–p95 and max per mode, ours and SQLite FTS5",
                "build": "Build time (median, s)", "rss": "Peak memory (MB)", "size": "Size (MB)"}}[lang_pick.value]
    mo.vstack([mo.md(f"## {L['title']}\n\n`{history['folder']}` · {len(benches)} bench report(s)"),
               mo.md("") if benches else mo.callout(L["none"], kind="warn")])
    return (L,)


@app.cell
def _(L, alt, benches, mo):
    _rows = []
    for _b in benches:
        _label = f"{_b['scale']} · {_b['index_rev']}"
        for _m, _v in sorted(_b["modes"].items()):
            _rows.append({"run": _label, "who": f"ours · {_m}", **_v})
        if _b["fts5"].get("p50_ms") is not None:
            _rows.append({"run": _label, "who": "SQLite FTS5", **_b["fts5"], "max_ms": None})
    _out = mo.md("")
    if _rows:
        _out = mo.vstack([mo.md(f"### {L['latency']}"), alt.layer(
            alt.Chart().mark_rule(size=6, color="#3b6ea5").encode(x=alt.X("p50_ms:Q", title="ms"), x2="p95_ms:Q",
                                                                  y="who:N"),
            alt.Chart().mark_tick(color="#c23b3b").encode(x="max_ms:Q", y="who:N"),
            alt.Chart().mark_point(color="#222").encode(x="p50_ms:Q", y="who:N",
                                                        tooltip=["who:N", "p50_ms:Q", "p95_ms:Q", "max_ms:Q"]),
            data=alt.Data(values=_rows)).facet(row="run:N"), mo.ui.table(_rows, selection=None)])
    _out
    return


@app.cell
def _(L, alt, benches, mo):
    _build = [{"run": f"{b['scale']} · {b['index_rev']}", "kind": k, "seconds": v.get("median_s"),
               "peak_rss_mb": v.get("peak_rss_mb")}
              for b in benches for k, v in b["build"].items() if v.get("median_s") is not None]
    _size = [{"run": f"{b['scale']} · {b['index_rev']}", "what": k, "mb": round(v / 1e6, 1)}
             for b in benches for k, v in b["size"].items() if isinstance(v, int | float)]
    _out = mo.md("")
    if _build:
        _out = mo.vstack([
            mo.md(f"### {L['build']}"),
            alt.Chart(alt.Data(values=_build)).mark_bar().encode(x="seconds:Q", y="run:N", color="kind:N",
                                                                 yOffset="kind:N"),
            mo.md(f"### {L['rss']}"),
            alt.Chart(alt.Data(values=_build)).mark_bar().encode(x="peak_rss_mb:Q", y="run:N", color="kind:N",
                                                                 yOffset="kind:N"),
            mo.md(f"### {L['size']}"),
            alt.Chart(alt.Data(values=_size)).mark_bar().encode(x="mb:Q", y="run:N", color="what:N",
                                                                yOffset="what:N"),
        ])
    _out
    return


if __name__ == "__main__":
    app.run()
