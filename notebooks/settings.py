"""Settings & status (spec 001 §9.1): the on/off toggle with its honest state, schedule, sources, actions with
progress, privacy. Every change goes through the API `akw config` uses (`Warehouse.config_set`).

Run: `marimo run notebooks/settings.py`. Forget / delete-all / schedule appear only when this build's
`Warehouse` has them (`forget`, `delete_index`, `schedule_show`).
"""

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="AKW · Settings & status")


@app.cell
def _():
    import json
    from html import escape

    import marimo as mo

    from warehouse import ui
    from warehouse.api import Warehouse
    from warehouse.core.errors import KnowledgeError

    wh = Warehouse.open()
    return KnowledgeError, escape, json, mo, ui, wh


@app.cell
def _(mo, ui):
    lang_pick = mo.ui.radio(options=ui.LANGS, value="RU", inline=True, label="Язык / Language")
    get_tick, set_tick = mo.state(0)  # bumped after every change: status and forms re-read
    lang_pick
    return get_tick, lang_pick, set_tick


@app.cell
def _(lang_pick):
    lang = lang_pick.value
    L = {"ru": {"title": "Настройки и состояние", "enabled": "agent-knowledge включён", "last": "Последний запуск",
                "next": "Следующий запуск", "schedule": "Расписание", "times": "Время запусков (ЧЧ:ММ через запятую)",
                "tz": "Часовой пояс", "catch": "Догонять пропущенный запуск",
                "stale": "Запуск при старте, если устарел",
                "save": "Сохранить", "sources": "Источники", "ro": "только чтение", "actions": "Действия",
                "reindex": "Переиндексировать", "full": "Полная пересборка", "verify": "Проверить",
                "clear": "Очистить индекс", "privacy": "Приватность", "retention": "Хранить дней",
                "excl": "Исключить workspaces (через запятую)", "forget": "Забыть", "delete": "Удалить всё",
                "confirm": "Подтверждаю необратимое действие", "kind": "Что",
                "id": "Идентификатор", "preview": "Показать, что будет удалено",
                "sch_mode": "Режим", "times_short": "Время запусков",
                "zone": "Часовой пояс (фактический)", "next_runs": "Ближайшие запуски",
                "last_sched": "Последний запуск по расписанию", "stale_after": "Индекс устаревает через, ч",
                "due": "Сейчас нужен запуск", "reports_after": "Отчёт после запуска", "yes": "да", "no": "нет",
                "never": "ещё не было", "usage": "Как отвечает поиск (7 дней, только счётчики)",
                "u_surface": "поверхность", "u_searches": "поисков", "u_zero": "пустых", "u_weak": "слабых",
                "u_degraded": "с деградацией", "u_both": "с обоими видами доказательств", "u_errors": "ошибки",
                "u_latency": "задержка",
                "u_none": "поисков ещё не было"},
         "en": {"title": "Settings & status", "enabled": "agent-knowledge on", "last": "Last run",
                "next": "Next run", "schedule": "Schedule", "times": "Run times (HH:MM, comma-separated)",
                "tz": "Timezone", "catch": "Catch up a missed run", "stale": "Run on start if stale", "save": "Save",
                "sources": "Sources", "ro": "read-only", "actions": "Actions", "reindex": "Reindex",
                "full": "Full rebuild", "verify": "Verify", "clear": "Clear index", "privacy": "Privacy",
                "retention": "Retention days", "excl": "Exclude workspaces (comma-separated)", "forget": "Forget",
                "delete": "Delete everything", "confirm": "I confirm an irreversible action",
                "kind": "What", "id": "Id",
                "preview": "Show what would be removed",
                "sch_mode": "Mode", "times_short": "Run times", "zone": "Timezone (effective)",
                "next_runs": "Next runs",
                "last_sched": "Last scheduled run", "stale_after": "Index is stale after, h", "due": "A run is due now",
                "reports_after": "Report after a run", "yes": "yes", "no": "no", "never": "none yet",
                "usage": "How search answers (7 days, counts only)", "u_surface": "surface",
                "u_searches": "searches", "u_zero": "zero-result", "u_weak": "weak", "u_degraded": "degraded lane",
                "u_both": "both kinds of evidence", "u_errors": "errors", "u_latency": "latency",
                "u_none": "no search yet"}}[lang]
    return L, lang


@app.cell
def _(L, get_tick, lang, mo, ui, wh):
    get_tick()
    st = wh.status()
    s = wh.config_show()["agent-knowledge"]
    _last = st.get("last_run") or {}
    _hint = ui.state_hint(st["state"], lang)
    _gap = ui.language_hint(st, lang)

    def _usage_html(usage):
        """FR-9's content-free metrics per surface (the same numbers as `akw status`)."""
        from html import escape

        rows = (usage.get("by_surface") or {}).items()
        if not rows:
            return f"<div id='akw-usage'><b>{escape(L['usage'])}</b>: {escape(L['u_none'])}</div>"
        # padding on every cell: marimo's table style collapses borders, so a table's border-spacing is ignored
        pad = "style='padding:2px 16px 2px 0;text-align:left;vertical-align:top'"
        head = "".join(f"<th {pad}>{escape(L[k])}</th>" for k in ("u_surface", "u_searches", "u_zero", "u_weak",
                                                                   "u_degraded", "u_both", "u_latency", "u_errors"))
        body = "".join(
            "<tr>" + "".join(f"<td {pad}>{v}</td>" for v in (
                escape(n), u["searches"], f"{u['zero_result_rate']:.0%}", f"{u['weak_rate']:.0%}",
                f"{u['degraded_share']:.0%}", f"{u['both_evidence_share']:.0%}",
                f"P50 ≤ {u['latency_ms']['p50']} ms · P95 ≤ {u['latency_ms']['p95']} ms",
                escape(", ".join(f"{c} {k}" for c, k in u["errors"].items()) or "—"))) + "</tr>" for n, u in rows)
        return f"<div id='akw-usage'><b>{escape(L['usage'])}</b><table><tr>{head}</tr>{body}</table></div>"

    mo.vstack([
        mo.md(f"## {L['title']}\n\n<span id='akw-state'>**{ui.state_text(st['state'], lang)}**</span> · "
              f"index_rev `{st['index_rev'] or '—'}` · {ui.t('local_only', lang)}\n\n"
              f"{L['last']}: {ui.value_text(_last.get('outcome', '—'), lang)} {_last.get('finished_at') or ''} · "
              f"{L['next']}: {st.get('next_run') or '—'}"),
        mo.callout(mo.md(_hint), kind="warn") if _hint else mo.md(""),
        mo.callout(mo.md(_gap), kind="info") if _gap else mo.md(""),
        mo.Html(_usage_html(st.get("usage") or {})),
    ])
    return s, st



@app.cell
def _(L, mo, s, set_tick, wh):
    def _toggle(on):
        wh.enable() if on else wh.disable()
        set_tick(lambda n: n + 1)

    enabled = mo.ui.switch(value=s["enabled"], label=L["enabled"], on_change=_toggle)
    enabled
    return (enabled,)


@app.cell
def _(L, mo, s):
    sch = s["schedule"]
    times = mo.ui.text(value=", ".join(sch["times"]), label=L["times"])
    tz = mo.ui.text(value=sch["timezone"], label=L["tz"])
    catch = mo.ui.dropdown(options=["latest", "none"], value=sch["catch_up"], label=L["catch"])
    stale = mo.ui.checkbox(value=sch["run_on_start_if_stale"], label=L["stale"])
    save_schedule = mo.ui.run_button(label=L["save"])
    mo.vstack([mo.md(f"### {L['schedule']}"), mo.hstack([times, tz, catch], justify="start"), stale, save_schedule])
    return catch, save_schedule, stale, times, tz


@app.cell
def _(KnowledgeError, catch, json, mo, save_schedule, schedule_html, set_tick, stale, times, tz, wh):
    _out = mo.md("")
    if save_schedule.value:
        _times = [t.strip() for t in times.value.split(",") if t.strip()]
        try:
            wh.config_set([f"schedule.times={json.dumps(_times)}", f"schedule.timezone={json.dumps(tz.value)}",
                           f"schedule.catch_up={catch.value}",
                           f"schedule.run_on_start_if_stale={'true' if stale.value else 'false'}"])
            set_tick(lambda n: n + 1)
            _out = mo.callout("✓", kind="success")
        except KnowledgeError as _e:
            _out = mo.callout(f"{_e.code}: {_e.message}", kind="danger")
    _out = mo.vstack([_out, mo.Html(schedule_html(wh.schedule_show()))])
    _out
    return


@app.cell
def _(L, escape, lang, ui):
    def _run_text(run):
        if not run:
            return L["never"]
        return escape(" · ".join(ui.value_text(run[k], lang) if k == "outcome" else str(run[k])
                                 for k in ("outcome", "finished_at", "index_rev") if run.get(k)))

    def schedule_html(sch):
        """`schedule_show` as a table a person reads (the next runs in the schedule's zone, the last run,
        whether one is due and why) instead of its raw JSON tree."""
        due = sch.get("due") or {}
        yes_no = {True: L["yes"], False: L["no"]}
        why = " · ".join(escape(str(due[k]).replace("T", " ")[:16]) for k in ("reason", "slot") if due.get(k))
        nexts = "<br>".join(escape(str(t).replace("T", " ")[:16]) for t in sch.get("next_runs") or [])
        rows = [(L["sch_mode"], escape(str(sch.get("mode")))),
                (L["times_short"], escape(", ".join(sch.get("times") or []))),
                (L["zone"], escape(f"{sch.get('timezone')} → {sch.get('zone')}")),
                (L["next_runs"], nexts),
                (L["last"], _run_text(sch.get("last_run"))),
                (L["last_sched"], _run_text(sch.get("last_scheduled"))),
                (L["catch"], escape(str(sch.get("catch_up")))),
                (L["stale"], yes_no.get(sch.get("run_on_start_if_stale"), "—")),
                (L["stale_after"], escape(str(sch.get("stale_after_hours")))),
                (L["due"], yes_no.get(due.get("due"), "—") + (f" ({why})" if due.get("due") and why else "")),
                (L["reports_after"], yes_no.get(sch.get("reports"), "—"))]
        head = "style='text-align:left;vertical-align:top;padding-right:16px'"
        body = "".join(f"<tr><th {head}>{k}</th><td>{v}</td></tr>" for k, v in rows)
        return f"<table id='akw-schedule'>{body}</table>"
    return (schedule_html,)


@app.cell
def _(L, escape, mo, s, st):
    _rows = []
    for _name in ("harness", "autoclaw", "skills", "code", "claude_code", "codex"):
        _key = "dsh" if _name == "harness" else _name
        _c = (st.get("sources") or {}).get(_key, {})
        _root = (st.get("roots") or {}).get(_key, {}).get("state")
        _state = "error" if _c.get("error") else ("ok" if _c.get("units") else (_root or "—"))
        _ro = f" <span class='badge'>— {L['ro']}</span>" if _name == "autoclaw" else ""
        _on = s["sources"][_name]
        _on = "auto" if _on == "auto" else ("on" if _on else "off")
        _rows.append(f"<tr><td>{escape(_name)}{_ro}</td><td>{_on}</td>"
                     f"<td>{_c.get('units', 0)}</td><td>{_c.get('ok', 0)}</td><td>{_c.get('error', 0)}</td>"
                     f"<td>{_state}</td></tr>")
    mo.vstack([mo.md(f"### {L['sources']}"),
               mo.Html("<table id='akw-sources'><tr><th>source</th><th>enabled</th><th>units</th><th>ok</th>"
                       f"<th>error</th><th>state</th></tr>{''.join(_rows)}</table>")])
    return


@app.cell
def _(L, mo, wh):
    act_reindex = mo.ui.run_button(label=L["reindex"])
    act_full = mo.ui.run_button(label=L["full"])
    act_verify = mo.ui.run_button(label=L["verify"])
    act_clear = mo.ui.run_button(label=L["clear"])
    clear_ok = mo.ui.checkbox(label=L["confirm"])
    mo.vstack([mo.md(f"### {L['actions']}"), mo.hstack([act_reindex, act_full, act_verify, act_clear, clear_ok],
                                                        justify="start")])
    return act_clear, act_full, act_reindex, act_verify, clear_ok


@app.cell
def _(act_clear, act_full, act_reindex, act_verify, clear_ok, mo, set_tick, ui, wh):
    def _act():
        _mode = "incremental" if act_reindex.value else "full" if act_full.value else \
            "verify" if act_verify.value else None
        if _mode:
            with mo.status.spinner(title=f"reindex {_mode} …") as _sp:
                return wh.reindex(mode=_mode, progress=lambda d, a, t: _sp.update(subtitle=f"{d}: +{a}"))
        if act_clear.value and clear_ok.value:
            return wh.delete_index(confirm=True)
        return None

    ui.action_result(mo, set_tick, _act)
    return


@app.cell
def _(L, lang, mo, s, ui, wh):
    retention = mo.ui.number(value=s["retention_days"], start=1, stop=36500, label=L["retention"])
    excl = mo.ui.text(value=", ".join(s["exclude"]["workspaces"]), label=L["excl"])
    save_privacy = mo.ui.run_button(label=L["save"])
    forget_kind = mo.ui.dropdown(options=["session", "actor", "skill", "workspace"], value="session", label=L["kind"])
    forget_id = mo.ui.text(label=L["id"])
    forget_preview = mo.ui.run_button(label=L["preview"])
    forget_ok = mo.ui.checkbox(label=L["confirm"])
    forget_btn = mo.ui.run_button(label=L["forget"])
    delete_btn = mo.ui.run_button(label=L["delete"])
    mo.vstack([mo.md(f"### {L['privacy']}\n\n{ui.t('local_only', lang)}"),
               mo.hstack([retention, excl, save_privacy], justify="start"),
               mo.md(f"**{L['forget']}**"),
               mo.hstack([forget_kind, forget_id, forget_preview, forget_ok, forget_btn, delete_btn], justify="start")])
    return delete_btn, excl, forget_btn, forget_id, forget_kind, forget_ok, forget_preview, retention, save_privacy


@app.cell
def _(delete_btn, excl, forget_btn, forget_id, forget_kind, forget_ok, forget_preview, json, mo, retention,
      save_privacy, set_tick, ui, wh):
    def _act():
        _id = forget_id.value.strip()
        if save_privacy.value:
            _ws = [w.strip() for w in excl.value.split(",") if w.strip()]
            return wh.config_set([f"retention_days={int(retention.value)}", f"exclude.workspaces={json.dumps(_ws)}"])
        if forget_preview.value and _id:
            return wh.forget(forget_kind.value, _id)
        if forget_btn.value and forget_ok.value and _id:
            return wh.forget(forget_kind.value, _id, confirm=True)
        if delete_btn.value and forget_ok.value:
            return wh.delete_index(confirm=True)
        return None

    ui.action_result(mo, set_tick, _act)
    return


if __name__ == "__main__":
    app.run()
