"""Search (spec 001 §9.2): query, modes, filters, result cards, the cards behind every evidence id (episode,
code, skill, agent) and the dispatch dialog; before a query, a start page (example queries, recent episodes,
the most active agents) so a first look is not a blank page.

Run: `marimo run notebooks/search.py` (the home comes from AKW_HOME / DSH_HOME / AUTOCLAW_ROOT).
Every operation is one `Warehouse` call: status, sql (the start page), search, get_episode / get_code /
get_skill / get_agent, dispatch.
"""

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="AKW · Search")


@app.cell
def _():
    import re
    from html import escape

    import marimo as mo

    from warehouse import ui
    from warehouse.api import Warehouse
    from warehouse.core.errors import KnowledgeError

    wh = Warehouse.open()
    wh.surface = "app"  # the content-free usage metrics count this app's searches apart (akw status)
    return KnowledgeError, escape, mo, re, ui, wh


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
    L = {"ru": {"examples": "Попробуйте", "recent": "Недавние эпизоды", "actors": "Самые активные агенты",
                "open": "Открыть", "episodes": "эпизодов", "success": "успешных", "used": "кто использовал",
                "close": "Закрыть карточку", "episode": "Эпизод", "code": "Код", "goal": "Задача",
                "result": "Итог", "errors": "Ошибки", "transcript": "Фрагмент сессии", "focus": "открыт на событии",
                "neighbours": "Соседние фрагменты", "no_data": "В индексе пока нет эпизодов: запустите `akw reindex`."},
         "en": {"examples": "Try", "recent": "Recent episodes", "actors": "Most active agents", "open": "Open",
                "episodes": "episodes", "success": "succeeded", "used": "who used", "close": "Close the card",
                "episode": "Episode", "code": "Code", "goal": "Goal", "result": "Result", "errors": "Errors",
                "transcript": "Session excerpt", "focus": "opened at event", "neighbours": "Nearby chunks",
                "no_data": "No episodes indexed yet: run `akw reindex`."}}[lang]
    mo.vstack([
        mo.md(f"## {ui.t('search.title', lang)}\n\n**{ui.t('state.label', lang)}:** "
              f"<span id='akw-state'>{ui.state_text(st['state'], lang)}</span> · index_rev "
              f"`{st['index_rev'] or '—'}` · {ui.t('local_only', lang)}"),
        mo.callout(mo.md(_hint), kind="warn") if _hint else mo.md(""),
    ])
    return L, lang, st


@app.cell
def _(mo):
    get_query, set_query = mo.state("")  # an example query on the start page fills the box through it
    get_dispatch, set_dispatch = mo.state(None)
    get_open, set_open = mo.state(None)  # (kind, id) of the card shown: episode | code | skill | agent
    return get_dispatch, get_open, get_query, set_dispatch, set_open, set_query


@app.cell
def _(get_query, lang, mo, set_query, ui):
    query = mo.ui.text(value=get_query(), placeholder=ui.t("search.placeholder", lang),
                       label=ui.t("search.query", lang), full_width=True, on_change=set_query)
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
def _(escape, re):
    def label(text, limit=60):
        """A button label from indexed text: marimo renders labels as Markdown, so the text is escaped for
        HTML and its Markdown punctuation backslashed (a name like `__init__` stays literal)."""
        short = str(text) if len(str(text)) <= limit else str(text)[:limit - 1] + "…"
        return re.sub(r"([\\`*_{}\[\]()#+!|~>-])", r"\\\1", escape(short))

    def card_ref(card, evidence_id):
        """The card an evidence id opens: by its prefix, else the card of the result it belongs to (a skill's
        SKILL.md path opens the skill)."""
        prefixes = {"episode:": "episode", "ev:": "episode", "chunk:": "code", "skill:": "skill", "actor:": "agent"}
        for prefix, kind in prefixes.items():
            if str(evidence_id).startswith(prefix):
                return kind, evidence_id
        by_lane = {"skills": "skill", "code": "code", "episodes": "episode"}
        return by_lane.get(card["kind"], "episode"), card["id"]
    return card_ref, label


@app.cell
def _(KnowledgeError, L, st, wh):
    def start_rows(sql):
        """One start-page query through the read-only `Warehouse.sql` (access control applies); [] when the
        warehouse cannot answer (disabled, nothing published)."""
        try:
            r = wh.sql(sql, limit=10)
        except KnowledgeError:
            return []
        return [dict(zip(r["columns"], row, strict=True)) for row in r["rows"]]

    recent, top_actors, examples = [], [], []
    if st["state"] != "disabled":
        recent = start_rows("SELECT e.episode_id, e.title, e.outcome, e.started_at, a.display_name AS actor "
                            "FROM ak_episode e LEFT JOIN ak_actor a USING (actor_id) "
                            "ORDER BY e.started_at DESC NULLS LAST, e.episode_id LIMIT 5")
        top_actors = start_rows("SELECT actor_id, display_name, kind, episodes, successes FROM ak_actor "
                                "WHERE episodes > 0 ORDER BY episodes DESC, success_rate DESC, actor_id LIMIT 5")
        _skills = start_rows("SELECT name FROM ak_skill WHERE status = 'live' AND uses > 0 "
                             "ORDER BY uses DESC, name LIMIT 2")
        examples = [f"{L['used']} {s['name']}" for s in _skills]
        examples += [e["title"] for e in recent if e["outcome"] == "success" and e["title"]][:1]
        examples = list(dict.fromkeys(examples))
    return examples, recent, top_actors


@app.cell
def _(KnowledgeError, mode, outcome, query, set_dispatch, set_open, since, skill, source, st, ui, workspace,
      wh):
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
        set_open(None)
    cards = ui.result_cards(resp, mode.value) if resp else []
    if source.value != "—":
        cards = [_c for _c in cards if _c["source"] == source.value]
    return cards, error, resp


@app.cell
def _(L, escape, ui):
    def episode_card_html(card, lang):
        """An episode card (`get_episode`): who, where, when, the goal, the result, the errors and the
        session excerpt around the event it was opened at. Indexed text goes through `ui.plain`."""
        result = card.get("result") or {}
        focus = (card.get("focus") or {}).get("seq")
        lines = []
        for ev in (card.get("transcript") or [])[:8]:
            mark = ' style="background:#fde2e2"' if ev.get("seq") == focus else ""
            lines.append(f"<li{mark}><code>#{ev.get('seq')}</code> {escape(str(ev.get('role')))}: "
                         f"{ui.plain(ev.get('text'))[:240]}</li>")
        errors = "".join(f"<li><code>#{e.get('seq')}</code> {ui.plain(e.get('text'))[:240]}</li>"
                         for e in (card.get("errors") or [])[:5])
        opened = f" · {L['focus']} <code>{ui.plain(card.get('opened_as'))}</code>" if focus is not None else ""
        return (f'<div id="episode-card" style="border:2px solid #7d5ba6;border-radius:8px;padding:10px 14px">'
                f'<h3>{L["episode"]}: {ui.plain(card.get("title"))}</h3>'
                f'<p><code>{ui.plain(card.get("episode_id"))}</code>{opened}</p>'
                f'<p>{ui.plain((card.get("actor") or {}).get("display_name"))} · '
                f'{ui.plain((card.get("workspace") or {}).get("workspace_id"))} · {ui.plain(card.get("started_at"))}'
                f' · {ui.plain(result.get("outcome"))}</p>'
                f'<p><b>{L["goal"]}:</b> {ui.plain(card.get("goal"))[:400]}</p>'
                f'<p><b>{L["result"]}:</b> {ui.plain(result.get("final_answer"))[:400]}</p>'
                + (f'<p><b>{L["errors"]}:</b></p><ul>{errors}</ul>' if errors else "")
                + f'<p><b>{L["transcript"]}:</b></p><ul>{"".join(lines)}</ul></div>')

    def code_card_html(card, lang):
        """A code card (`get_code`): the file, lines, symbol and the chunk's text, with its neighbours."""
        near = "".join(f"<li><code>{ui.plain(n.get('id'))}</code> {ui.plain(n.get('note'))}</li>"
                       for n in (card.get("neighbours") or [])[:5])
        return (f'<div id="code-card" style="border:2px solid #6b6b6b;border-radius:8px;padding:10px 14px">'
                f'<h3>{L["code"]}: {ui.plain(card.get("path"))}:{card.get("start_line")}-{card.get("end_line")}'
                f'</h3><p>{ui.plain((card.get("workspace") or {}).get("workspace_id"))} · '
                f'{ui.plain(card.get("language"))} · {ui.plain(card.get("symbol"))}</p>'
                f'<pre style="white-space:pre-wrap">{ui.plain(card.get("text"))}</pre>'
                + (f'<p><b>{L["neighbours"]}:</b></p><ul>{near}</ul>' if near else "") + "</div>")
    return code_card_html, episode_card_html


@app.cell
def _(KnowledgeError, L, code_card_html, episode_card_html, get_open, lang, mo, ui, wh):
    _ref = get_open()
    _out = mo.md("")
    if _ref:
        _kind, _id = _ref
        _get = {"episode": wh.get_episode, "code": wh.get_code, "skill": wh.get_skill, "agent": wh.get_agent}
        _html = {"episode": episode_card_html, "code": code_card_html, "skill": ui.skill_card_html,
                 "agent": ui.agent_card_html}
        try:
            _out = mo.Html(_html[_kind](_get[_kind](_id), lang))
        except KnowledgeError as _e:
            _out = mo.callout(mo.md(f"**{_e.code}** — {_e.message}"), kind="danger")
    close_btn = mo.ui.run_button(label=L["close"])
    mo.vstack([_out, close_btn]) if _ref else _out
    return (close_btn,)


@app.cell
def _(close_btn, set_open):
    if close_btn.value:
        set_open(None)
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
def _(L, cards, examples, label, lang, mo, recent, top_actors, ui):
    dispatch_btns = mo.ui.array([mo.ui.run_button(label=ui.t("dispatch.button", lang)) for _ in cards])
    skill_btns = mo.ui.array([mo.ui.run_button(label=ui.t("skill.button", lang)) for _ in cards])
    agent_btns = mo.ui.array([mo.ui.run_button(label=ui.t("agent.button", lang)) for _ in cards])
    evidence_btns = mo.ui.array([mo.ui.array([mo.ui.run_button(label=label(_e, 80)) for _e in _c["evidence"][:3]])
                                 for _c in cards])
    example_btns = mo.ui.array([mo.ui.run_button(label=label(_q)) for _q in examples])
    recent_btns = mo.ui.array([mo.ui.run_button(label=L["open"]) for _ in recent])
    actor_btns = mo.ui.array([mo.ui.run_button(label=L["open"]) for _ in top_actors])
    return (actor_btns, agent_btns, dispatch_btns, evidence_btns, example_btns, recent_btns, skill_btns)


@app.cell
def _(L, actor_btns, escape, example_btns, mo, recent, recent_btns, top_actors, ui):
    def start_page():
        """Before a query: example queries to click, the newest episodes and the busiest agents, each with
        its card one click away."""
        eps = "".join(f"<tr><td>{recent_btns[i]}</td><td>{ui.plain(str(e['started_at'])[:16])}</td>"
                      f"<td>{escape(str(e['outcome']))}</td><td>{ui.plain(e['title'])}</td>"
                      f"<td>{ui.plain(e['actor'])}</td></tr>" for i, e in enumerate(recent))
        acts = "".join(f"<tr><td>{actor_btns[i]}</td><td>{ui.plain(a['display_name'])}</td>"
                       f"<td>{escape(str(a['kind']))}</td><td>{a['episodes']} {L['episodes']}</td>"
                       f"<td>{a['successes']} {L['success']}</td></tr>" for i, a in enumerate(top_actors))
        if not recent:
            return mo.callout(mo.md(L["no_data"]), kind="info")
        return mo.Html('<style>#akw-start td{padding:2px 10px;border-bottom:1px solid #eee}'
                       '#akw-start h4{margin:14px 0 4px;font-weight:600}</style>'
                       f'<div id="akw-start"><h4>{L["examples"]}</h4><div id="akw-examples">'
                       + " ".join(b.text for b in example_btns)
                       + f'</div><h4>{L["recent"]}</h4><table id="akw-recent">{eps}</table>'
                       f'<h4>{L["actors"]}</h4><table id="akw-actors">{acts}</table></div>')
    return (start_page,)


@app.cell
def _(agent_btns, card_ref, cards, dispatch_btns, error, evidence_btns, lang, mo, resp, skill_btns, st,
      start_page, ui):
    def with_evidence_buttons(c, i):
        """The result card with each evidence id (up to three) replaced by a button that opens its card."""
        head, sep, tail = ui.card_html(c, lang).partition(f"<b>{ui.t('card.evidence', lang)}:</b>")
        for j, e in enumerate(c["evidence"][:3]):
            kind = card_ref(c, e)[0]
            tail = tail.replace(f"<li>{ui.plain(e)}</li>",
                                f'<li class="akw-evidence" data-card="{kind}">{evidence_btns[i][j]}</li>', 1)
        return mo.Html(head + sep + tail)

    if error:
        _out = mo.callout(mo.md(f"**{error['code']}** — {error['message']}"), kind="danger")
    elif resp is None:
        _out = mo.md(f"_{ui.state_hint(st['state'], lang) or ''}_") if st["state"] == "disabled" else start_page()
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
            _rows.append(mo.vstack([with_evidence_buttons(_c, _i), mo.hstack(_btns, justify="start")]))
        _out = mo.vstack(_rows)
    _out
    return


@app.cell
def _(agent_btns, card_ref, cards, dispatch_btns, evidence_btns, set_dispatch, set_open, skill_btns):
    for _i, _c in enumerate(cards):
        if dispatch_btns.value[_i]:
            set_dispatch(_c)
        if skill_btns.value[_i]:
            set_open(("skill", _c["skill"]))
        if agent_btns.value[_i]:
            set_open(("agent", _c["actor_id"]))
        for _j, _e in enumerate(_c["evidence"][:3]):
            if evidence_btns.value[_i][_j]:
                set_open(card_ref(_c, _e))
    return


@app.cell
def _(actor_btns, example_btns, examples, recent, recent_btns, set_open, set_query, top_actors):
    for _i, _q in enumerate(examples):
        if example_btns.value[_i]:
            set_query(_q)
    for _i, _e in enumerate(recent):
        if recent_btns.value[_i]:
            set_open(("episode", _e["episode_id"]))
    for _i, _a in enumerate(top_actors):
        if actor_btns.value[_i]:
            set_open(("agent", _a["actor_id"]))
    return


if __name__ == "__main__":
    app.run()
