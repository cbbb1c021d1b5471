"""The words the terminal renderers print around the data, in one catalogue: key → {"en": ..., "ru": ...}.

One output speaks one language (issue 28): a command decides it once (core/language: `ui.language`,
else the query or task typed, else the locale) and hands it to its renderer, which takes every label
from here instead of scattered if/else. Stored values (states, lanes, outcomes) are translated only
in this text form, never in `--json`; data (titles, snippets, paths, ids) is never translated.
Templates are `str.format` templates.
"""

from __future__ import annotations

from warehouse.core import language
from warehouse.core.language import Lang

LABELS: dict[str, dict[Lang, str]] = {
    # -- search ----------------------------------------------------------------------------------
    "search.intent": {"en": "intent {intent} (intent confidence {confidence}): {reason}",
                      "ru": "тип вопроса {intent} (уверенность в типе {confidence}): {reason}"},
    "search.match": {"en": "match: {level}", "ru": "совпадение: {level}"},
    "search.similarity": {"en": "similarity {v}", "ru": "близость {v}"},
    "search.coverage": {"en": "coverage {v}", "ru": "покрытие {v}"},
    "search.unknown": {"en": "unknown: {v}", "ru": "неизвестно: {v}"},
    "search.who": {"en": "who", "ru": "кто"},
    "search.actor": {"en": "{kind}, {source}; fit {fit}; hand over as {mode}",
                     "ru": "{kind}, {source}; пригодность {fit}; способ передачи: {mode}"},
    "search.did": {"en": "did: {v}", "ru": "делал: {v}"},
    "search.degraded": {"en": "degraded: {v}", "ru": "деградация: {v}"},
    # -- shared ------------------------------------------------------------------------------------
    "why": {"en": "why", "ru": "почему"},
    "evidence": {"en": "evidence", "ru": "доказательства"},
    "none": {"en": "none", "ru": "нет"},
    "yes": {"en": "yes", "ru": "да"},
    "no": {"en": "no", "ru": "нет"},
    # -- status / sources / reindex ---------------------------------------------------------------
    "status.index": {"en": "index {rev}  ({size})", "ru": "индекс {rev}  ({size})"},
    "status.kept": {"en": "{reason}; index kept: {kept}", "ru": "{reason}; индекс сохранён: {kept}"},
    "status.reason": {"en": "reason: {v}", "ru": "причина: {v}"},
    "status.fix": {"en": "fix: {v}", "ru": "что сделать: {v}"},
    "status.last_run": {"en": "last run: {mode}, {outcome} at {at} ({s} s)",
                        "ru": "последний запуск: {mode}, {outcome} в {at} ({s} с)"},
    "status.next_run": {"en": "next run: {v}", "ru": "следующий запуск: {v}"},
    "status.sources": {"en": "sources: {v}", "ru": "источники: {v}"},
    "status.coverage": {"en": "coverage (source → indexed):", "ru": "охват (источник → в индексе):"},
    "status.duplicates": {"en": ", {n} duplicates", "ru": ", дубликатов: {n}"},
    "status.mismatch": {"en": "MISMATCH", "ru": "РАСХОЖДЕНИЕ"},
    "status.counts": {"en": "index: {v}", "ru": "индекс: {v}"},
    "status.usage": {"en": "usage ({surface}, {days} days): {searches} searches; zero-result {zero}, weak {weak}, "
                           "degraded {degraded}, both kinds of evidence {both}; P50 ≤ {p50} ms, P95 ≤ {p95} ms; "
                           "errors {errors}",
                     "ru": "использование ({surface}, дней: {days}): поисков {searches}; пустых {zero}, слабых "
                           "{weak}, с деградацией {degraded}, с обоими видами доказательств {both}; P50 ≤ {p50} мс, "
                           "P95 ≤ {p95} мс; ошибки: {errors}"},
    "status.errors": {"en": "errors: {v}", "ru": "ошибки: {v}"},
    "sources": {"en": "sources", "ru": "источники"},
    "col.source": {"en": "source", "ru": "источник"},
    "col.units": {"en": "units", "ru": "единиц"},
    "col.ok": {"en": "ok", "ru": "ок"},
    "col.error": {"en": "error", "ru": "ошибка"},
    "col.excluded": {"en": "excluded", "ru": "исключено"},
    "col.root": {"en": "root", "ru": "папка"},
    "col.seen": {"en": "seen", "ru": "всего"},
    "col.changed": {"en": "changed", "ru": "изм."},
    "col.same": {"en": "same", "ru": "те же"},
    "col.failed": {"en": "failed", "ru": "сбой"},
    "col.gone": {"en": "gone", "ru": "ушло"},
    "col.rows": {"en": "rows", "ru": "строк"},
    "col.errors": {"en": "errors", "ru": "ошибки"},
    "extract.title": {"en": "extract ({s} s, {n} files written)", "ru": "извлечение ({s} с, записано файлов: {n})"},
    "reindex.verify_ok": {"en": "verify: ok", "ru": "проверка: всё сходится"},
    "reindex.verify_bad": {"en": "verify: mismatches", "ru": "проверка: есть расхождения"},
    "reindex.done": {"en": "{outcome} ({mode}): index_rev {rev} in {s} s",
                     "ru": "{outcome} ({mode}): index_rev {rev} за {s} с"},
    "reindex.first_build": {"en": "first build", "ru": "первая сборка"},
    "count.episodes": {"en": "{n} episodes", "ru": "эпизодов: {n}"},
    "count.actors": {"en": "{n} actors", "ru": "акторов: {n}"},
    "count.skills": {"en": "{n} skills", "ru": "навыков: {n}"},
    "count.events": {"en": "{n} events", "ru": "событий: {n}"},
    "count.memories": {"en": "{n} memories", "ru": "воспоминаний: {n}"},
    "count.documents": {"en": "{n} documents", "ru": "документов: {n}"},
    # -- cards -----------------------------------------------------------------------------------
    "card.id": {"en": "id {v}", "ru": "идентификатор {v}"},
    "card.index": {"en": "index {v}", "ru": "индекс {v}"},
    "card.task": {"en": "task: {task}  (matched: {terms})", "ru": "задача: {task}  (совпали: {terms})"},
    "card.task_fit": {"en": "task fit", "ru": "соответствие задаче"},
    "card.applicability": {"en": "applicability", "ru": "применимость"},
    "card.limits": {"en": "limits", "ru": "ограничения"},
    "card.typical_errors": {"en": "typical errors", "ru": "типичные ошибки"},
    "card.checklist": {"en": "checklist", "ru": "чек-лист"},
    "card.lines": {"en": "lines {first}-{last}", "ru": "строки {first}-{last}"},
    "card.body": {"en": "body", "ru": "текст"},
    "card.cut": {"en": "cut: {field} {shown}/{total} — {rest}", "ru": "обрезано: {field} {shown}/{total} — {rest}"},
    "skill.brief": {"en": "skill {name}  ({facts})", "ru": "навык {name}  ({facts})"},
    "skill.when": {"en": "when to use: {v}", "ru": "когда применять: {v}"},
    "skill.used": {"en": "used {uses}× by {actors} actor(s); first {first}, last {last}",
                   "ru": "применён {uses}× акторами ({actors}); впервые {first}, последний раз {last}"},
    "skill.ships": {"en": "ships: {v}", "ru": "в комплекте: {v}"},
    "feedback": {"en": "recorded {verdict} for {id} ({useful} useful, {not_useful} not useful; ranking x{boost})",
                 "ru": "записано «{verdict}» для {id} (полезно: {useful}, бесполезно: {not_useful}; ранжирование "
                       "x{boost})"},
    "feedback.useful": {"en": "useful", "ru": "полезно"},
    "feedback.not_useful": {"en": "not useful", "ru": "бесполезно"},
    # -- schedule ----------------------------------------------------------------------------------
    "schedule.head": {"en": "schedule {mode} {times} {zone}; {state}",
                      "ru": "расписание {mode} {times} {zone}; {state}"},
    "schedule.enabled": {"en": "enabled", "ru": "включено"},
    "schedule.disabled": {"en": "disabled (nothing runs)", "ru": "выключено (ничего не запускается)"},
    "schedule.next": {"en": "next runs: {v}", "ru": "следующие запуски: {v}"},
    "schedule.last": {"en": "last run: {at} {outcome}", "ru": "последний запуск: {at} {outcome}"},
    "schedule.due": {"en": "due now: {due} ({reason}{slot}); stale={stale}",
                     "ru": "пора запускать: {due} ({reason}{slot}); устарел={stale}"},
    "schedule.nothing_missed": {"en": "nothing missed", "ru": "ничего не пропущено"},
    "schedule.slot": {"en": ", slot {v}", "ru": ", слот {v}"},
    # -- dispatch ------------------------------------------------------------------------------------
    "dispatch.available": {"en": "available", "ru": "доступно"},
    "dispatch.unavailable": {"en": "not available: {v}", "ru": "недоступно: {v}"},
    "dispatch.target": {"en": "{name} ({kind}, {id}) via {choice}; {mode} {av}",
                        "ru": "{name} ({kind}, {id}), выбор: {choice}; {mode} {av}"},
    "dispatch.acceptance": {"en": "acceptance", "ru": "критерии приёмки"},
    "dispatch.constraints": {"en": "constraints", "ru": "ограничения"},
    "dispatch.risks": {"en": "risks", "ru": "риски"},
    "dispatch.context": {"en": "context: {v}", "ru": "контекст: {v}"},
    "dispatch.prior_episodes": {"en": "prior episodes", "ru": "прошлые эпизоды"},
    "dispatch.code_refs": {"en": "code refs", "ru": "ссылки на код"},
    "dispatch.skills": {"en": "skills", "ru": "навыки"},
    "dispatch.artifacts": {"en": "artifacts", "ru": "артефакты"},
    "dispatch.count": {"en": "{n} {label}", "ru": "{label}: {n}"},
    "dispatch.package_only": {"en": "none (a package only)", "ru": "нет (только пакет)"},
    "dispatch.handoff": {"en": "handoff {id}: tool calls {calls}; execution {execution}",
                         "ru": "передача {id}: вызовы инструментов {calls}; исполнение {execution}"},
    "dispatch.recorded": {"en": "recorded", "ru": "записано"},
    "dispatch.already": {"en": "already recorded", "ru": "уже записано"},
    "dispatch.suggestion": {"en": "suggestion: create a new actor {v}", "ru": "предложение: создать нового актора {v}"},
    "handoff.head": {"en": "handoff {id}  (dispatch {dispatch}; {status}, execution {execution})",
                     "ru": "передача {id}  (план {dispatch}; {status}, исполнение {execution})"},
    "handoff.task": {"en": "task: {v}", "ru": "задача: {v}"},
    "handoff.to": {"en": "to: {v}", "ru": "кому: {v}"},
    "handoff.requested": {"en": "requested by {who} at {at}; deadline {deadline}",
                          "ru": "запросил {who} в {at}; срок {deadline}"},
    "handoff.uses": {"en": "{name} ({n} uses)", "ru": "{name} (применений: {n})"},
    "handoff.calls": {"en": "tool calls ({execution}): {calls}", "ru": "вызовы инструментов ({execution}): {calls}"},
    "handoff.needs": {"en": "needs: {v}", "ru": "нужно: {v}"},
    "handoff.package": {"en": "package: {v}", "ru": "пакет: {v}"},
    # -- demo --------------------------------------------------------------------------------------
    "demo.next": {"en": "next", "ru": "дальше"},
    "demo.use": {"en": "Use it:", "ru": "Как пользоваться:"},
    "unit.mb": {"en": "{v:.1f} MB", "ru": "{v:.1f} МБ"},
}

# stored values a text form may show in words (never in --json): states, lanes, outcomes, match levels

# a card's sections (its top-level field names) as headings of its text form (--json keeps the names)
FIELDS_RU: dict[str, str] = {
    "description": "описание", "dispatch": "передача", "episodes": "эпизоды", "episodes_total": "эпизодов всего",
    "first_activity": "первая активность", "last_activity": "последняя активность", "instructions": "инструкции",
    "kind": "вид", "models": "модели", "parent_session_id": "родительская сессия", "participations": "участие",
    "sessions": "сессии", "skills": "навыки", "source": "источник", "stats": "статистика", "task": "задача",
    "workspaces": "рабочие пространства", "workspace": "рабочее пространство", "allowed_tools":
    "разрешённые инструменты", "body_chars": "символов в тексте", "disable_model_invocation":
    "вызов моделью запрещён", "front_matter": "заголовок", "license": "лицензия", "missing_references":
    "недостающие ссылки", "provenance": "происхождение", "related": "связанные", "resources": "ресурсы",
    "status": "статус", "usage": "использование", "user_invocable": "вызывается пользователем",
    "version": "версия", "when_to_use": "когда применять", "actions": "действия", "actor": "актор",
    "artifacts": "артефакты", "compactions": "сжатия контекста", "constraints": "ограничения",
    "duration_s": "длительность, с", "ended_at": "окончание", "errors": "ошибки", "focus": "фокус",
    "goal": "цель", "memories": "воспоминания", "model": "модель", "opened_as": "открыт как",
    "participants": "участники", "result": "итог", "retries": "повторы", "source_read": "прочитано в источнике",
    "source_refs": "ссылки на источник", "started_at": "начало", "title": "название",
    "transcript_total": "событий всего", "neighbours": "соседние фрагменты", "path": "путь",
    "source_kind": "вид источника", "symbol": "символ", "language": "язык",
}


def t(key: str, lang: Lang, **values: object) -> str:
    """Label `key` in `lang` (English if it has no translation), filled with `values`."""
    return language.text(LABELS, key, lang, **values)


def field(name: str, lang: Lang) -> str:
    """A card's field name as a heading in `lang`."""
    return FIELDS_RU.get(name, name) if lang == "ru" else name


def value(v: object, lang: Lang) -> str:
    """A stored value (a state, a lane, an outcome) in words of `lang`; anything else as it is."""
    return language.value(v, lang)
