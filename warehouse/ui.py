"""Presentation for the marimo apps (notebooks/): RU/EN interface text and escaped HTML for cards and plans.

Indexed text reaches these helpers wrapped in `<untrusted-data>` (cards, snippets); the wrapper is removed and
everything is HTML-escaped, so no indexed text can become markup or script in a notebook.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape
from typing import Any

from warehouse.core import language

LANGS = {"RU": "ru", "EN": "en"}
UNTRUSTED = re.compile(r"</?untrusted-data[^>]*>")

TEXT: dict[str, dict[str, str]] = {
    "search.title": {"ru": "Поиск по знаниям агентов", "en": "Search the agents' knowledge"},
    "search.query": {"ru": "Запрос", "en": "Query"},
    "search.placeholder": {"ru": "Кто уже переносил сайт iya.ru?", "en": "Who already migrated iya.ru?"},
    "mode.find_agent": {"ru": "Агенты", "en": "Agents"},
    "mode.find_skill": {"ru": "Навыки", "en": "Skills"},
    "mode.find_knowledge": {"ru": "Знания", "en": "Knowledge"},
    "mode.find_code": {"ru": "Код", "en": "Code"},
    "filter.source": {"ru": "Источник", "en": "Source"},
    "filter.workspace": {"ru": "Рабочее пространство", "en": "Workspace"},
    "filter.since": {"ru": "С даты (ГГГГ-ММ-ДД)", "en": "Since (YYYY-MM-DD)"},
    "filter.outcome": {"ru": "Итог", "en": "Outcome"},
    "filter.skill": {"ru": "Навык", "en": "Skill"},
    "any": {"ru": "любой", "en": "any"},
    "dispatch.button": {"ru": "Передать задачу", "en": "Hand the task over"},
    "skill.button": {"ru": "Карточка навыка", "en": "Skill card"},
    "agent.button": {"ru": "Карточка агента", "en": "Agent card"},
    "dispatch.title": {"ru": "Передача задачи — пробный план", "en": "Hand-over — dry-run plan"},
    "dispatch.task": {"ru": "Задача", "en": "Task"},
    "dispatch.acceptance": {"ru": "Критерии приёмки (по строке)", "en": "Acceptance criteria (one per line)"},
    "dispatch.dry_run_note": {"ru": "Пробный запуск: ничего не записано и не отправлено.",
                              "en": "Dry run: nothing was recorded or sent."},
    "dispatch.confirm": {"ru": "Я проверил план и подтверждаю запись передачи",
                         "en": "I checked the plan and confirm recording the hand-over"},
    "dispatch.commit": {"ru": "Записать передачу", "en": "Record the hand-over"},
    "dispatch.committed": {"ru": "Передача записана в папку исходящих", "en": "Hand-over recorded in the outbox"},
    "dispatch.target": {"ru": "Исполнитель", "en": "Target"},
    "dispatch.context": {"ru": "Контекстный пакет", "en": "Context pack"},
    "card.why": {"ru": "Почему", "en": "Why"},
    "card.evidence": {"ru": "Доказательства", "en": "Evidence"},
    "card.skills": {"ru": "Навыки", "en": "Skills"},
    "card.fit": {"ru": "пригодность", "en": "fit"},
    "card.match": {"ru": "совпадение ответа", "en": "answer match"},
    "card.rank": {"ru": "№{n} в «{lane}»", "en": "#{n} in {lane}"},
    "match.level.strong": {"ru": "сильное", "en": "strong"},
    "match.level.weak": {"ru": "слабое", "en": "weak"},
    "match.level.none": {"ru": "нет", "en": "none"},
    "language.gap": {"ru": "В индексе почти нет русского текста: вопрос по-русски об этой работе не найдёт её по "
                           "словам. Включите поиск по смыслу: `akw config set semantic.enabled=true`, затем "
                           "`akw reindex`.",
                     "en": "The index holds almost no Russian text: a question in Russian about this work shares no "
                           "words with it. Turn on search by meaning: `akw config set semantic.enabled=true`, then "
                           "`akw reindex`."},
    "match.weak": {"ru": "Слабое совпадение: это зацепки, а не ответ", "en": "Weak match: leads, not the answer"},
    "skill.when": {"ru": "Когда применять", "en": "When to use"},
    "skill.resources": {"ru": "Ресурсы", "en": "Resources"},
    "skill.usage": {"ru": "История использования", "en": "Usage history"},
    "skill.agents": {"ru": "Агенты", "en": "Agents"},
    "skill.body": {"ru": "Текст навыка", "en": "Skill body"},
    "empty.title": {"ru": "Ничего не найдено", "en": "Nothing found"},
    "empty.todo": {"ru": "Что сделать: переформулируйте запрос, смените режим, снимите фильтры или запустите "
                         "`akw reindex`, если источники обновились.",
                   "en": "What to do: rephrase, switch the mode, clear the filters, or run `akw reindex` if the "
                         "sources changed."},
    "state.label": {"ru": "Состояние", "en": "State"},
    "local_only": {"ru": "только локально: данные не покидают машину", "en": "local only: no data leaves the machine"},
}

STATE_TEXT = {
    "ready": {"ru": "Активен", "en": "Active"},
    "not_ready": {"ru": "Индексируется", "en": "Indexing"},
    "stale": {"ru": "Устарел", "en": "Stale"},
    "error": {"ru": "Ошибка", "en": "Error"},
    "disabled": {"ru": "Выключено", "en": "Disabled"},
    "degraded": {"ru": "Активен, с деградацией", "en": "Active, degraded"},
}
STATE_HINT = {
    "not_ready": {"ru": "Индекс ещё не опубликован: запустите `akw reindex`.",
                  "en": "No index is published yet: run `akw reindex`."},
    "stale": {"ru": "Индекс устарел: запустите переиндексацию.", "en": "The index is stale: run a reindex."},
    "error": {"ru": "Последняя сборка упала, индекса нет: смотрите ошибки ниже.",
              "en": "The last build failed and there is no index: see the errors below."},
    "disabled": {"ru": "`agent-knowledge` выключен: включите его в «Настройках».",
                 "en": "agent-knowledge is off: turn it on in Settings."},
    "degraded": {"ru": "Часть источников не прочитана: ответы могут быть неполными.",
                 "en": "Some source units failed: answers may be incomplete."},
}
MODES = ("find_agent", "find_skill", "find_knowledge", "find_code")
LANE_FIRST = {"find_skill": "skills", "find_code": "code"}  # the lane a mode asks for is shown first


def t(key: str, lang: str) -> str:
    return TEXT[key][lang]


def state_text(state: str, lang: str) -> str:
    return STATE_TEXT.get(state, {}).get(lang, state)


def value_text(v: object, lang: str) -> str:
    """A stored value (a run's outcome, a state, a lane) in words of `lang`, as the CLI's text form prints it."""
    return language.value(v, "ru" if lang == "ru" else "en")


def state_hint(state: str, lang: str) -> str | None:
    return STATE_HINT.get(state, {}).get(lang)


def mode_options(lang: str) -> dict[str, str]:
    """Radio options label → mode, in the order Агенты | Навыки | Знания | Код."""
    return {t(f"mode.{m}", lang): m for m in MODES}


def plain(text: Any) -> str:
    """Indexed text as safe HTML: the untrusted-data wrapper removed, everything escaped."""
    return escape(UNTRUSTED.sub("", "" if text is None else str(text)))


def _list(items: list[Any], limit: int = 3) -> str:
    return "<ul>" + "".join(f"<li>{plain(i)}</li>" for i in items[:limit]) + "</ul>" if items else ""


def result_cards(resp: dict[str, Any], mode: str) -> list[dict[str, Any]]:
    """The response as uniform cards: name, kind, source, confidence, why, evidence, skills, and the ids to act on."""
    cards: list[dict[str, Any]] = []
    if mode in ("find_agent", "auto"):
        for a in resp.get("actors") or []:
            cards.append({"id": a["actor_id"], "name": a.get("name") or a["actor_id"], "kind": a.get("kind"),
                          "source": a.get("source"), "confidence": a.get("confidence"), "why": a.get("why") or [],
                          "evidence": [e.get("id") for e in a.get("evidence") or []],
                          "skills": [s.get("name") for s in a.get("skills") or []], "actor_id": a["actor_id"],
                          "skill": None, "detail": a.get("context")})
    if mode == "find_agent" and cards:  # Агенты: the ranked actors; lane items only when no actor was found
        return cards
    lanes = resp.get("lanes") or {}
    first = LANE_FIRST.get(mode, "episodes")
    level = (resp.get("match") or {}).get("level")
    for lane in sorted(lanes, key=lambda n: (n != first, n)):
        for rank, it in enumerate(lanes[lane].get("items") or [], 1):
            actor = it.get("actor") or {}
            # a lane's scores are not comparable with another's (a skill at 0.02 beside code at 1.00): an item
            # shows the answer's match signal and its rank in its lane instead
            cards.append({"id": it["id"], "name": it.get("name") or it.get("path") or it.get("symbol") or it["id"],
                          "kind": lane, "source": None if lane in ("code", "skills") else it["id"].split(":")[1],
                          "confidence": None, "match": level, "rank": rank, "why": it.get("why") or [],
                          "evidence": [it.get("event_id") or it.get("chunk_id") or it.get("path") or it["id"]],
                          "skills": [], "actor_id": actor.get("id"),
                          "skill": it.get("name") if lane == "skills" else None,
                          "detail": it.get("snippet") or it.get("description")})
    return cards


def _signal(c: dict[str, Any], lang: str) -> str:
    """An actor's fit (comparable among actors), or a lane item's answer match and rank in its lane."""
    if isinstance(c.get("confidence"), int | float):
        return f'{t("card.fit", lang)} {c["confidence"]:.2f}'
    if c.get("match"):
        return (f'{t("card.match", lang)}: {t("match.level." + c["match"], lang)} · '
                + t("card.rank", lang).format(n=c.get("rank"), lane=c["kind"]))
    return ""


def card_html(c: dict[str, Any], lang: str) -> str:
    skills = ", ".join(plain(s) for s in c["skills"]) or "–"
    head = " · ".join(x for x in (plain(c["kind"]), plain(c["source"]) if c.get("source") else "", _signal(c, lang))
                      if x)
    return (f'<div class="akw-card" data-id="{escape(c["id"])}" style="border:1px solid #ccd;border-radius:8px;'
            f'padding:8px 12px;margin:6px 0">'
            f'<b class="akw-card-name">{plain(c["name"])}</b> · {head}'
            f'<div class="muted">{plain(c.get("detail"))[:300]}</div>'
            f'<div><b>{t("card.why", lang)}:</b>{_list(c["why"])}</div>'
            f'<div><b>{t("card.evidence", lang)}:</b>{_list(c["evidence"])}</div>'
            f'<div><b>{t("card.skills", lang)}:</b> {skills}</div></div>')


def skill_card_html(card: dict[str, Any], lang: str) -> str:
    usage = card.get("usage") or {}
    res = [f"{r.get('path')} ({r.get('role') or r.get('kind')}, {r.get('size')} B)"
           for r in card.get("resources") or []]
    recent = [f"{u.get('time')} · {u.get('outcome')} · {u.get('episode_id')}" for u in usage.get("recent") or []]
    agents = [f"{a.get('display_name') or a.get('actor_id')} ({a.get('uses')})" for a in usage.get("by_actor") or []]
    return (f'<div id="skill-card" class="akw-skill-card" style="border:2px solid #3b6ea5;border-radius:8px;'
            f'padding:10px 14px">'
            f'<h3>{plain(card.get("name"))}</h3><p>{plain(card.get("description"))}</p>'
            f'<p><b>{t("skill.when", lang)}:</b> {plain(card.get("when_to_use"))}</p>'
            f'<p><b>{t("skill.resources", lang)}:</b></p>{_list(res, 20)}'
            f'<p><b>{t("skill.usage", lang)}:</b> {usage.get("uses", 0)}</p>{_list(recent, 10)}'
            f'<p><b>{t("skill.agents", lang)}:</b></p>{_list(agents, 10)}'
            f'<details><summary>{t("skill.body", lang)}</summary>'
            f'<pre style="white-space:pre-wrap">{plain(card.get("body"))}</pre></details></div>')


def agent_card_html(card: dict[str, Any], lang: str) -> str:
    stats = card.get("stats") or {}
    skills = [f"{s.get('name')} ({s.get('uses')})" for s in card.get("skills") or []]
    eps = [f"{e.get('time') or ''} · {e.get('outcome')} · {e.get('episode_id')}" for e in card.get("episodes") or []]
    return (f'<div id="agent-card" style="border:2px solid #3a9d5d;border-radius:8px;padding:10px 14px">'
            f'<h3>{plain(card.get("display_name"))}</h3><p>{plain(card.get("kind"))} · {plain(card.get("source"))}'
            f'</p><p>{plain(card.get("description"))}</p>'
            f'<p>episodes {stats.get("episodes", 0)} · successes {stats.get("successes", 0)}</p>'
            f'<p><b>{t("card.skills", lang)}:</b></p>{_list(skills, 10)}{_list(eps, 5)}</div>')


def plan_html(plan: dict[str, Any], lang: str, committed: bool = False) -> str:
    target = plan.get("target") or {}
    pack = plan.get("context_pack") or {}
    prior = [f"{e.get('outcome')} · {e.get('episode_id')}" for e in pack.get("prior_episodes") or []]
    note = t("dispatch.committed", lang) if committed else t("dispatch.dry_run_note", lang)
    return (f'<div id="dispatch-dialog" role="dialog" aria-label="{t("dispatch.title", lang)}" '
            f'style="border:2px solid #d9822b;border-radius:10px;padding:10px 14px;background:#fffaf3">'
            f'<h3>{t("dispatch.title", lang)}</h3><p><b class="dispatch-mode">{escape(str(plan.get("mode")))}</b> · '
            f'{note}</p>'
            f'<p><b>{t("dispatch.target", lang)}:</b> {plain(target.get("name") or target.get("actor_id"))} '
            f'({plain((target.get("dispatch") or {}).get("mode"))})</p>{_list(target.get("why") or [], 5)}'
            f'<p><b>{t("dispatch.task", lang)}:</b> {plain(pack.get("title"))}</p>'
            f'<p><b>{t("dispatch.acceptance", lang)}:</b></p>{_list(pack.get("acceptance") or [], 10)}'
            f'<p><b>{t("dispatch.context", lang)}:</b></p>{_list(prior, 5)}'
            + "".join(f'<p class="bad">{plain(e.get("code"))}: {plain(e.get("message"))}</p>'
                      for e in plan.get("errors") or []) + "</div>")


def language_hint(status: dict[str, Any], lang: str) -> str:
    """The settings page's note when search by meaning is off and the index holds almost no Russian text
    (status `semantic.hint`, issue 24); "" otherwise."""
    return t("language.gap", lang) if (status.get("semantic") or {}).get("hint") else ""


def match_html(resp: dict[str, Any], lang: str) -> str:
    """A banner over a weak answer (search/match.py) with the reason the search gave; "" for a strong one."""
    if (resp.get("match") or {}).get("level") != "weak":
        return ""
    why = [w.get("message", "") for w in resp.get("warnings") or [] if w.get("code") == "KNOWLEDGE_WEAK_MATCH"]
    return (f'<div id="akw-weak" style="border-left:4px solid #c90;padding:6px 12px;background:#fdf8ec">'
            f'<b>{t("match.weak", lang)}</b>{_list(why, 2)}</div>')


def empty_html(resp: dict[str, Any], lang: str) -> str:
    """The empty state: why nothing came back (warnings grouped by message, the routing) and what to do."""
    by_msg: dict[str, list[str]] = {}
    for w in (resp.get("warnings") or []) + (resp.get("errors") or []):
        if isinstance(w, dict):
            by_msg.setdefault(f"{w.get('code', '')}: {w.get('message', '')}", []).append(w.get("lane") or "")
    reasons = [f"{', '.join(x for x in lanes if x) or '—'} — {m}" for m, lanes in by_msg.items()]
    if (resp.get("routing") or {}).get("reason"):
        reasons.append(resp["routing"]["reason"])
    return (f'<div id="akw-empty" style="border-left:4px solid #3b6ea5;padding:8px 14px;background:#f3f7fc">'
            f'<b>{t("empty.title", lang)}</b>{_list(reasons, 10)}<p>{plain(t("empty.todo", lang))}</p></div>')


def action_result(mo: Any, set_tick: Callable[[Callable[[int], int]], None],
                  act: Callable[[], dict[str, Any] | None]) -> Any:
    """One settings action of a notebook: `act()` runs it (None: no button was pressed); its document,
    or a KNOWLEDGE_* refusal as {code, message}, is shown, and the page's state ticks so the cells
    that read the warehouse refresh."""
    from warehouse.core.errors import KnowledgeError

    try:
        doc = act()
    except KnowledgeError as e:
        doc = {"code": e.code, "message": e.message}
    if doc is None:
        return mo.md("")
    set_tick(lambda n: n + 1)
    return mo.json(doc)
