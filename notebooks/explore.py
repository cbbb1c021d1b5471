"""Explore: read-only SQL over the marts for analysts, with charts (`Warehouse.sql`, docs/marts.md).

Run: `marimo run notebooks/explore.py`. The canned queries live in notebooks/queries/*.sql; edit them here.
"""

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="AKW · Explore")


@app.cell
def _():
    from pathlib import Path

    import altair as alt
    import marimo as mo

    from warehouse.api import Warehouse
    from warehouse.core.errors import KnowledgeError

    wh = Warehouse.open()
    queries = {p.stem: p.read_text(encoding="utf-8") for p in sorted((Path(__file__).parent / "queries").glob("*.sql"))}
    return KnowledgeError, alt, mo, queries, wh


@app.cell
def _(mo):
    lang_pick = mo.ui.radio(options={"RU": "ru", "EN": "en"}, value="RU", inline=True, label="Язык / Language")
    lang_pick
    return (lang_pick,)


@app.cell
def _(lang_pick, mo):
    L = {"ru": {"title": "Исследование витрин (только чтение)", "run": "Выполнить", "custom": "Свой запрос"},
         "en": {"title": "Explore the marts (read-only)", "run": "Run", "custom": "Your query"}}[lang_pick.value]
    mo.md(f"## {L['title']}\n\n`ak_actor`, `ak_episode`, `ak_skill_use`, `ak_document` … — docs/marts.md")
    return (L,)


@app.cell
def _(L, mo, queries):
    editors = mo.ui.dictionary({name: mo.ui.code_editor(value=sql, language="sql", min_height=80)
                                for name, sql in queries.items()})
    custom = mo.ui.code_editor(value="SELECT source, count(*) AS episodes FROM ak_episode GROUP BY ALL",
                               language="sql", label=L["custom"], min_height=60)
    return custom, editors


@app.cell
def _(KnowledgeError, wh):
    def run(sql):
        """One read-only query → (rows as dicts, error text)."""
        try:
            r = wh.sql(sql, limit=500)
        except KnowledgeError as e:
            return [], f"{e.code}: {e.message}"
        return [dict(zip(r["columns"], [str(v) if hasattr(v, "isoformat") else v for v in row], strict=True))
                for row in r["rows"]], None
    return (run,)


@app.cell
def _(alt):
    def actor_labels(rows):
        """One y label per actor: two actors may share a display name ("Ops SRE" of two accounts), and one
        label for both would stack their bars past 1.0."""
        seen, out = {}, []
        for r in rows:
            name = str(r.get("display_name") or r.get("actor_id"))[:60]
            seen[name] = seen.get(name, 0) + 1
            out.append({**r, "actor": name if seen[name] == 1 else f"{name} #{seen[name]}"})
        return out

    def chart(name, rows):
        """The picture that suits each canned query; legends sit under the plot, never over the bars."""
        legend = alt.Legend(orient="bottom")
        if name == "actors_by_success":
            rows = actor_labels(rows)
            return alt.Chart(alt.Data(values=rows)).mark_bar().encode(
                x=alt.X("success_rate:Q", title="success share", stack=None,
                        scale=alt.Scale(domain=[0, 1], clamp=True), axis=alt.Axis(format="%")),
                y=alt.Y("actor:N", sort="-x", title=None, axis=alt.Axis(labelLimit=320)),
                color=alt.Color("kind:N", legend=legend),
                tooltip=["display_name:N", "actor_id:N", "episodes:Q", "success_rate:Q"]).properties(width=420)
        data = alt.Data(values=rows)
        if name == "skill_usage_over_time":
            return alt.Chart(data).mark_line(point=True).encode(x="week:T", y="uses:Q",
                                                                color=alt.Color("skill_name:N", legend=legend))
        if name == "episodes_per_workspace":
            return alt.Chart(data).mark_bar().encode(x="episodes:Q", y="workspace:N",
                                                     color=alt.Color("outcome:N", legend=legend))
        return None
    return (chart,)


@app.cell
def _(chart, editors, mo, run):
    _blocks = []
    for _name, _editor in editors.items():
        _rows, _err = run(_editor.value)
        _chart = chart(_name, _rows) if _rows and not _err else None
        _blocks.append(mo.vstack([mo.md(f"### {_name.replace('_', ' ')}"), _editor,
                                  mo.callout(_err, kind="danger") if _err else mo.ui.table(_rows, selection=None),
                                  _chart if _chart is not None else mo.md("")]))
    mo.vstack(_blocks)
    return


@app.cell
def _(custom, mo, run):
    _rows, _err = run(custom.value)
    mo.vstack([custom, mo.callout(_err, kind="danger") if _err else mo.ui.table(_rows, selection=None)])
    return


if __name__ == "__main__":
    app.run()
