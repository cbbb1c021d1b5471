"""Every text `knowledge_search` writes for people, in one catalogue: key → {"ru": ..., "en": ...}.

The texts used to live in twin `if ru: ... else: ...` branches next to the code that chose
them, so a wording change (or a third language) meant finding every branch in several files,
and the two languages drifted apart. Code now names a message by key and passes its values;
which words say it is decided here only.

Which language: one per answer (issue 28). The search decides it once per request
(core/language.output_language: the `ui.language` setting, else the query's letters, else the
locale) and every text a person reads follows it — the routing reason, the actors' and the lane
items' why-texts, degradation reasons, warnings and the answer's errors. Codes, lanes and other
fields callers match on never change. The messages of raised KNOWLEDGE_* errors (a request the
contract rejects, no published index) stay English: they are machine-facing. An entry with only
"en" is served in English whatever `lang` asks for. Russian texts carry no English words apart
from identifiers (lane names, intents, settings and commands in backticks).

Templates are `str.format` templates (format specs and `!r` work as in f-strings), so a
value is never parsed as a template; a literal brace is written `{{`.
"""

from __future__ import annotations

from warehouse.core import language
from warehouse.core.language import Lang

__all__ = ["MESSAGES", "Lang", "msg", "outcome"]

MESSAGES: dict[str, dict[Lang, str]] = {
    "none": {"ru": "нет", "en": "none"},
    # -- routing.reason (contract §6) --------------------------------------------------------
    "routing.explicit": {
        "ru": "режим {mode} задан явно, эвристика не применялась{tail}",
        "en": "mode {mode} was set explicitly, heuristics skipped{tail}",
    },
    "routing.no_triggers": {
        "ru": "явных признаков нет → find_knowledge (эпизоды и код поровну){tail}",
        "en": "no trigger words → find_knowledge (episodes and code weighted equally){tail}",
    },
    "routing.single": {
        "ru": "вопрос содержит {words} → {intent}{tail}",
        "en": "query contains {words} → {intent}{tail}",
    },
    "routing.mixed": {
        "ru": "смешанный вопрос: {named}; включены линии поиска всех тем с наибольшим весом{tail}",
        "en": "mixed question: {named}; lanes of every intent kept at their highest weight{tail}",
    },
    "routing.tail": {
        "ru": "; линии поиска: {lanes}; уверенность {confidence}",
        "en": "; lanes: {lanes}; confidence {confidence}",
    },
    "routing.no_lanes": {"ru": "нет", "en": "none"},
    "routing.quoted": {"ru": "«{word}»", "en": '"{word}"'},
    "routing.confidence.high": {"ru": "высокая", "en": "high"},
    "routing.confidence.medium": {"ru": "средняя", "en": "medium"},
    "routing.confidence.low": {"ru": "низкая", "en": "low"},
    # -- actors[].why (FR-5.3) ---------------------------------------------------------------
    "actor.episodes": {"ru": "эпизодов по теме запроса: {episodes}", "en": "{episodes} matching episode(s)"},
    "actor.success": {"ru": "успешный итог", "en": "successful outcome"},
    "actor.partial_success": {"ru": "частично успешные итоги", "en": "partly successful outcomes"},
    "actor.failure": {"ru": "итог: неудача", "en": "outcome: failure"},
    "actor.skill": {"ru": "навык {name} (применений: {uses})", "en": "skill {name} ({uses} uses)"},
    "actor.same_workspace": {"ru": "то же рабочее пространство", "en": "same workspace"},
    "actor.used_skills": {"ru": "применял найденные навыки", "en": "used the matching skills"},
    "actor.recent": {"ru": "недавно: {date}", "en": "recent: {date}"},
    "actor.profile": {"ru": "описание актора подходит к запросу", "en": "its description matches the query"},
    "actor.last_active": {"ru": "последняя активность {date}", "en": "last active {date}"},
    # -- lanes.<lane>.items[].why ----------------------------------------------------------------
    "item.fts_match": {"ru": "совпадение в событии {event_type}", "en": "fts: match in {event_type}"},
    "item.profile": {"ru": "профиль: имя или описание его актора подходит к запросу; это типичный эпизод актора",
                     "en": "profile: its actor's name/description matches; its representative episode"},
    "item.lexical": {"ru": "слова: {terms}", "en": "lex: {terms}"},
    "item.coverage": {"ru": "покрытие: {coverage:.2f}", "en": "coverage: {coverage:.2f}"},
    "item.vector": {"ru": "по смыслу: {similarity:.2f}", "en": "vec: {similarity:.2f}"},
    "item.outcome": {"ru": "итог: {outcome}", "en": "outcome: {outcome}"},
    "item.skill_evidence": {"ru": "применялся в подходящих эпизодах: {episodes}",
                            "en": "used in {episodes} matching episode{s}"},
    # an episode's stored outcome inside a why-text (the `outcome` fields keep the stored value)
    "outcome.success": {"ru": "успех", "en": "success"},
    "outcome.partial": {"ru": "частичный успех", "en": "partial"},
    "outcome.failure": {"ru": "неудача", "en": "failure"},
    "outcome.cancelled": {"ru": "отменён", "en": "cancelled"},
    "outcome.running": {"ru": "идёт", "en": "running"},
    "outcome.unknown": {"ru": "неизвестен", "en": "unknown"},
    # -- lanes.<lane>.semantic.reason and its warnings ---------------------------------------------
    "vec.no_vectors": {"ru": "в этом поколении индекса нет векторов линии {lane}",
                       "en": "no {lane} units are embedded in this generation"},
    "vec.not_built": {"ru": "это поколение индекса собрано без векторов: запустите `akw reindex` при включённом "
                            "`semantic.enabled`",
                      "en": "this generation was built without vectors: run `akw reindex` with semantic.enabled"},
    "vec.not_installed": {"ru": "`semantic.enabled` включён, но пакет локальной модели не установлен ({hint})",
                          "en": "semantic.enabled is true but the local model package is not installed ({hint})"},
    # -- lanes.<lane>.degradation_reason and warnings ------------------------------------------
    "lane.source_disabled": {"ru": "источник линии {lane} выключен в настройках",
                             "en": "the {lane} source is disabled in settings"},
    "lane.not_indexed": {"ru": "в линии {lane} нет проиндексированных документов",
                         "en": "no {lane} documents are indexed"},
    "lane.not_indexed_codes": {"ru": "в линии {lane} нет проиндексированных документов ({codes})",
                               "en": "no {lane} documents are indexed ({codes})"},
    "lane.units_failed": {"ru": "не прочитаны единицы источника ({failed}): {codes}",
                          "en": "{failed} source unit(s) failed: {codes}"},
    "lane.timed_out": {"ru": "линия поиска не уложилась в {ms} мс", "en": "lane timed out after {ms} ms"},
    "lane.query_failed": {"ru": "запрос линии поиска не выполнен ({error})", "en": "lane query failed ({error})"},
    "lane.no_match": {"ru": "ни один проиндексированный документ не подходит; ослабьте фильтры (`workspaces`, "
                            "`since`, `outcome`) или запустите `akw reindex`, если работа свежая",
                      "en": "no indexed document matches; widen the filters (workspaces, since, outcome) "
                            "or run `akw reindex` if the work is recent"},
    "access.trimmed": {"ru": "часть элементов не показана: доступ к ним не удалось подтвердить в источнике "
                             "(скрыты из осторожности)",
                       "en": "some items were not shown: their access could not be confirmed at the source "
                             "(trimmed for safety)"},
    # -- the answer's match (search/match.py) -------------------------------------------------------
    "match.nothing": {"ru": "ничто из проиндексированного не подходит к запросу",
                      "en": "nothing indexed matches the query"},
    "match.unknown_names": {"ru": "ни одна проиндексированная работа не упоминает {names}: ближайшая работа — о "
                                  "другом (проверьте написание или запустите `akw reindex`, если работа новая); "
                                  "{verdict}",
                            "en": "no indexed work mentions {names}: the nearest work is about something else "
                                  "(check the spelling, or `akw reindex` if the work is new); {verdict}"},
    "match.thin": {"ru": "лучшие кандидаты разделяют с запросом лишь несколько слов или отдалённый смысл "
                         "(наибольшая близость {sim}, покрытие слов {cov}); {verdict}",
                   "en": "the best candidates share only a few words or a loose meaning with the query (best "
                         "similarity {sim}, word coverage {cov}); {verdict}"},
    "match.thin_words": {"ru": "лучшие кандидаты разделяют лишь немногие слова запроса (покрытие слов {cov}); "
                               "{verdict}",
                         "en": "the best candidates share only a few of the query's words (word coverage {cov}); "
                               "{verdict}"},
    "match.across_scripts": {"ru": "вопрос и работа написаны на разных языках, а ближайшая работа близка по смыслу "
                                   "лишь отдалённо (наибольшая близость {sim}); {verdict}",
                             "en": "the question and the work are in different languages and the closest work is "
                                   "only loosely similar in meaning (best similarity {sim}); {verdict}"},
    "match.across_words": {"ru": "вопрос задан не на том языке, на котором записана большая часть работы, и поиск "
                                 "по словам нашёл лишь немногие общие слова (покрытие слов {cov}); {verdict}",
                           "en": "the question is in another language than most of the indexed work, and word "
                                 "search matched only the few words they share (word coverage {cov}); {verdict}"},
    "match.across_hint": {"ru": "вопрос задан не на том языке, на котором записана большая часть работы: поиск по "
                                "словам не переходит между языками. Включите поиск по смыслу (`akw config set "
                                "semantic.enabled true`, затем `akw reindex`) или спросите на языке работы",
                          "en": "the question is in another language than most of the indexed work: word search "
                                "cannot cross languages. Turn on search by meaning (`akw config set "
                                "semantic.enabled true`, then `akw reindex`) or ask in the work's language"},
    "match.verdict_weak": {"ru": "считайте найденное зацепками, а не ответом",
                           "en": "treat the items as leads, not as the answer"},
    "match.verdict_none": {"ru": "ничего не возвращено; переформулируйте словами, которыми написана работа",
                           "en": "nothing is returned; rephrase with the words the work would use"},
    "filter.unknown_workspace": {"ru": "filters.workspaces: {workspace!r} не называет ни одного проиндексированного "
                                       "рабочего пространства (укажите идентификатор, путь, имя папки или "
                                       "название; известные: {known})",
                                 "en": "filters.workspaces: {workspace!r} names no indexed workspace (give its id, "
                                       "path, folder name or title; known: {known})"},
    "budget.exceeded": {"ru": "даже без элементов ответ больше max_tokens={max_tokens}",
                        "en": "even without items the response exceeds max_tokens={max_tokens}"},
    # -- the answer's errors[] -------------------------------------------------------------------
    "search.no_source": {"ru": "ни одна линия поиска не может ответить: {reasons}",
                         "en": "no lane can answer: {reasons}"},
    # -- raised errors (KNOWLEDGE_NOT_READY): English, machine-facing ------------------------------
    "search.not_published": {"en": "no index generation is published yet (run `akw reindex`)"},
    "search.other_version": {"en": "the published index was built by another akw version and cannot be searched "
                                   "by this one: run `akw reindex`"},
    # -- request errors (KNOWLEDGE_INVALID_REQUEST, after the dotted field): English -----------
    "request.not_json": {"en": "request is not valid JSON (line {line})"},
    "request.not_object": {"en": "request must be a JSON object"},
    "request.unknown_field": {"en": "unknown field"},
    "request.required": {"en": "is required"},
    "request.no_offset": {"en": "must carry a timezone offset"},
    "request.not_rfc3339": {"en": "must be an RFC3339 timestamp like 2026-09-01T00:00:00+03:00"},
    "request.bad_datetime": {"en": "is not a valid date/time"},
    "request.until_before_since": {"en": "until is before since"},
    "request.nul": {"en": "must not contain NUL characters"},
    "request.blank": {"en": "must not be empty or whitespace only"},
    "request.too_long": {"en": "must be at most {chars} characters"},
    "request.unknown_mode": {"en": "mode: unknown value {mode!r}"},
    "request.unknown_lane": {"en": "include: unknown lane {lane!r}"},
}


def msg(key: str, lang: Lang, **values: object) -> str:
    """The text of message `key` in `lang` (English if it has no translation), filled with `values`."""
    return language.text(MESSAGES, key, lang, **values)


def outcome(value: str, lang: Lang) -> str:
    """A stored outcome (`success`, `failure`, …) in words of `lang`; an unknown value as it is."""
    return language.word(MESSAGES, f"outcome.{value}", lang, value)
