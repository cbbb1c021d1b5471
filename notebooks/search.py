"""Search (spec 001 §9.2): query, modes, filters, result cards, the skill/agent card and the dispatch dialog.

Run: `marimo run notebooks/search.py` (the home comes from AKW_HOME / DSH_HOME / AUTOCLAW_ROOT).
Every operation is one `Warehouse` call: status, search, get_skill, get_agent, dispatch.
"""

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="AKW · Search")


@app.cell
def _():
    import marimo as mo

    from warehouse import ui
    from warehouse.api import Warehouse
    from warehouse.core.errors import KnowledgeError

    wh = Warehouse.open()
    return KnowledgeError, mo, ui, wh


@app.cell
def _(mo, ui):
    lang_pick = mo.ui.radio(options=ui.LANGS, value="RU", inline=True, label="Язык / Language")
    lang_pick
    return (lang_pick,)


@app.cell
def _(lang_pick, mo, ui, wh):
    lang = lang_pick.value
    st = wh.status()
    _hint = ui.state_hint(st["state"], lang)
    mo.vstack([
        mo.md(f"## {ui.t('search.title', lang)}\n\n**{ui.t('state.label', lang)}:** "
              f"<span id='akw-state'>{ui.state_text(st['state'], lang)}</span> · index_rev "
              f"`{st['index_rev'] or '—'}` · {ui.t('local_only', lang)}"),
        mo.callout(mo.md(_hint), kind="warn") if _hint else mo.md(""),
    ])
    return lang, st


@app.cell
def _(lang, mo, ui):
    query = mo.ui.text(placeholder=ui.t("search.placeholder", lang), label=ui.t("search.query", lang),
                       full_width=True)
    mode = mo.ui.radio(options=ui.mode_options(lang), value=ui.t("mode.find_agent", lang), inline=True)
    source = mo.ui.dropdown(options=["—", "harness", "autoclaw", "skills", "code"], value="—",
                            label=ui.t("filter.source", lang))
    workspace = mo.ui.text(label=ui.t("filter.workspace", lang))
    since = mo.ui.text(label=ui.t("filter.since", lang))
    outcome = mo.ui.dropdown(options=["any", "success", "failure"], value="any", label=ui.t("filter.outcome", lang))
    skill = mo.ui.text(label=ui.t("filter.skill", lang))
    mo.vstack([query, mode, mo.hstack([source, workspace, since, outcome, skill], justify="start")])
    return mode, outcome, query, since, skill, source, workspace


@app.cell
def _(mo):
    get_dispatch, set_dispatch = mo.state(None)
    get_skill, set_skill = mo.state(None)
    get_agent, set_agent = mo.state(None)
    return get_agent, get_dispatch, get_skill, set_agent, set_dispatch, set_skill


@app.cell
def _(KnowledgeError, mode, outcome, query, set_agent, set_dispatch, set_skill, since, skill, source, st, ui,
      workspace, wh):
    resp, error = None, None
    if query.value.strip() and st["state"] != "disabled":
        _filters = {}
        if workspace.value.strip():
            _filters["workspaces"] = [workspace.value.strip()]
        if since.value.strip():
            _filters["since"] = since.value.strip() + "T00:00:00Z"
        if outcome.value != "any":
            _filters["outcome"] = outcome.value
        if skill.value.strip():
            _filters["skills"] = [skill.value.strip()]
        try:
            resp = wh.search({"schema": "knowledge.search/v1", "query": query.value, "mode": mode.value,
                              "limit": 8, "filters": _filters})
        except KnowledgeError as _e:
            error = _e.to_dict()
        set_dispatch(None)
        set_skill(None)
        set_agent(None)
    cards = ui.result_cards(resp, mode.value) if resp else []
    if source.value != "—":
        cards = [_c for _c in cards if _c["source"] == source.value]
    return cards, error, resp


@app.cell
def _(KnowledgeError, get_agent, get_skill, lang, mo, ui, wh):
    _parts = []
    try:
        if get_skill():
            _parts.append(mo.Html(ui.skill_card_html(wh.get_skill(get_skill()), lang)))
        if get_agent():
            _parts.append(mo.Html(ui.agent_card_html(wh.get_agent(get_agent()), lang)))
    except KnowledgeError as _e:
        _parts.append(mo.callout(mo.md(f"**{_e.code}** — {_e.message}"), kind="danger"))
    mo.vstack(_parts)
    return


@app.cell
def _(get_dispatch, lang, mo, query, ui):
    target = get_dispatch()
    task_title = mo.ui.text(value=query.value, label=ui.t("dispatch.task", lang), full_width=True)
    acceptance = mo.ui.text_area(value="", label=ui.t("dispatch.acceptance", lang), full_width=True)
    confirm = mo.ui.checkbox(label=ui.t("dispatch.confirm", lang))
    commit_btn = mo.ui.run_button(label=ui.t("dispatch.commit", lang))
    return acceptance, commit_btn, confirm, target, task_title


@app.cell
def _(KnowledgeError, acceptance, commit_btn, confirm, lang, mo, target, task_title, ui, wh):
    _out = mo.md("")
    if target is not None:
        _text = task_title.value or target["name"]
        if target["skill"]:
            _text = f"{_text} — use {target['skill']}"
        _req = {"schema": "knowledge.dispatch/v1",
                "task": {"title": (task_title.value or target["name"])[:200], "text": _text,
                         "acceptance": [a.strip() for a in acceptance.value.splitlines() if a.strip()]},
                "target": {"mode": "actor", "actor_id": target["actor_id"]} if target["actor_id"] else "auto"}
        try:
            _committed = bool(confirm.value and commit_btn.value)
            if _committed:  # commit only after the explicit confirmation and the button
                _plan = wh.dispatch({**_req, "dry_run": False, "commit": True, "confirm": True},
                                    requested_by="notebook:search")
            else:
                _plan = wh.dispatch({**_req, "dry_run": True}, requested_by="notebook:search")
            _out = mo.vstack([mo.Html(ui.plan_html(_plan, lang, committed=_committed)), task_title, acceptance,
                              confirm, commit_btn])
        except KnowledgeError as _e:
            _out = mo.callout(mo.md(f"**{_e.code}** — {_e.message}"), kind="danger")
    _out
    return


@app.cell
def _(cards, lang, mo, ui):
    dispatch_btns = mo.ui.array([mo.ui.run_button(label=ui.t("dispatch.button", lang)) for _ in cards])
    skill_btns = mo.ui.array([mo.ui.run_button(label=ui.t("skill.button", lang)) for _ in cards])
    agent_btns = mo.ui.array([mo.ui.run_button(label=ui.t("agent.button", lang)) for _ in cards])
    return agent_btns, dispatch_btns, skill_btns


@app.cell
def _(agent_btns, cards, dispatch_btns, error, lang, mo, resp, skill_btns, st, ui):
    if error:
        _out = mo.callout(mo.md(f"**{error['code']}** — {error['message']}"), kind="danger")
    elif resp is None:
        _out = mo.md(f"_{ui.state_hint(st['state'], lang) or ''}_") if st["state"] == "disabled" else mo.md("")
    elif not cards:
        _out = mo.Html(ui.empty_html(resp, lang))
    else:
        _banner = ui.match_html(resp, lang)
        _rows = [mo.Html(_banner)] if _banner else []
        for _i, _c in enumerate(cards):
            _btns = [dispatch_btns[_i]]
            if _c["skill"]:
                _btns.append(skill_btns[_i])
            if _c["actor_id"] and _c["kind"] not in ("episodes", "code", "skills"):
                _btns.append(agent_btns[_i])
            _rows.append(mo.vstack([mo.Html(ui.card_html(_c, lang)), mo.hstack(_btns, justify="start")]))
        _out = mo.vstack(_rows)
    _out
    return


@app.cell
def _(agent_btns, cards, dispatch_btns, set_agent, set_dispatch, set_skill, skill_btns):
    for _i, _c in enumerate(cards):
        if dispatch_btns.value[_i]:
            set_dispatch(_c)
        if skill_btns.value[_i]:
            set_skill(_c["skill"])
        if agent_btns.value[_i]:
            set_agent(_c["actor_id"])
    return


if __name__ == "__main__":
    app.run()
