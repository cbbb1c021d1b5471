"""Every text `knowledge_search` writes for people, in one catalogue: key → {"ru": ..., "en": ...}.

The texts used to live in twin `if ru: ... else: ...` branches next to the code that chose
them, so a wording change (or a third language) meant finding every branch in several files,
and the two languages drifted apart. Code now names a message by key and passes its values;
which words say it is decided here only.

Which language: the routing reason and the actors' why-texts follow the query's language
(the code that builds them detects it). Warnings, errors, degradation reasons, the lane
items' why-texts and request errors are English for every query — machine-adjacent text that
callers match on. Their entries carry only "en": a text not translated yet is served in
English whatever `lang` asks for, so translating one is adding its "ru" here.

Templates are `str.format` templates (format specs and `!r` work as in f-strings), so a
value is never parsed as a template; a literal brace is written `{{`.
"""

from __future__ import annotations

from typing import Literal

Lang = Literal["ru", "en"]

MESSAGES: dict[str, dict[Lang, str]] = {
    # -- routing.reason (contract §6): follows the query's language --------------------------
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
        "ru": "смешанный вопрос: {named}; включены lanes всех тем с наибольшим весом{tail}",
        "en": "mixed question: {named}; lanes of every intent kept at their highest weight{tail}",
    },
    "routing.tail": {
        "ru": "; lanes: {lanes}; уверенность {confidence}",
        "en": "; lanes: {lanes}; confidence {confidence}",
    },
    "routing.no_lanes": {"ru": "нет", "en": "none"},
    "routing.quoted": {"ru": "«{word}»", "en": '"{word}"'},
    "routing.confidence.high": {"ru": "высокая", "en": "high"},
    "routing.confidence.medium": {"ru": "средняя", "en": "medium"},
    "routing.confidence.low": {"ru": "низкая", "en": "low"},
    # -- actors[].why (FR-5.3): follows the query's language ---------------------------------
    "actor.episodes": {"ru": "{episodes} эпизод(а) по теме запроса", "en": "{episodes} matching episode(s)"},
    "actor.success": {"ru": "успешный итог", "en": "successful outcome"},
    "actor.partial_success": {"ru": "частично успешные итоги", "en": "partly successful outcomes"},
    "actor.failure": {"ru": "итог: неудача", "en": "outcome: failure"},
    "actor.skill": {"ru": "навык {name} ({uses})", "en": "skill {name} ({uses} uses)"},
    "actor.same_workspace": {"ru": "тот же workspace", "en": "same workspace"},
    "actor.used_skills": {"ru": "применял найденные навыки", "en": "used the matching skills"},
    "actor.recent": {"ru": "недавно: {date}", "en": "recent: {date}"},
    "actor.profile": {"ru": "описание актора подходит к запросу", "en": "its description matches the query"},
    "actor.last_active": {"ru": "последняя активность {date}", "en": "last active {date}"},
    # -- lanes.<lane>.items[].why: English ---------------------------------------------------
    "item.fts_match": {"en": "fts: match in {event_type}"},
    "item.profile": {"en": "profile: its actor's name/description matches; its representative episode"},
    "item.lexical": {"en": "lex: {terms}"},
    "item.coverage": {"en": "coverage: {coverage:.2f}"},
    "item.vector": {"en": "vec: {similarity:.2f}"},
    "vec.no_vectors": {"en": "no {lane} units are embedded in this generation"},
    "vec.not_built": {"en": "this generation was built without vectors: run `akw reindex` with semantic.enabled"},
    "item.outcome": {"en": "outcome: {outcome}"},
    "item.skill_evidence": {"en": "used in {episodes} matching episode{s}"},
    # -- lanes.<lane>.degradation_reason and warnings: English -------------------------------
    "lane.source_disabled": {"en": "the {lane} source is disabled in settings"},
    "lane.not_indexed": {"en": "no {lane} documents are indexed"},
    "lane.not_indexed_codes": {"en": "no {lane} documents are indexed ({codes})"},
    "lane.units_failed": {"en": "{failed} source unit(s) failed: {codes}"},
    "lane.timed_out": {"en": "lane timed out after {ms} ms"},
    "lane.query_failed": {"en": "lane query failed ({error})"},
    "lane.no_match": {"en": "no indexed document matches; widen the filters (workspaces, since, outcome) "
                            "or run `akw reindex` if the work is recent"},
    # -- the answer's match (search/match.py): English ------------------------------------------
    "match.nothing": {"en": "nothing indexed matches the query"},
    "match.unknown_names": {"en": "no indexed work mentions {names}: the nearest work is about something else "
                                  "(check the spelling, or `akw reindex` if the work is new); {verdict}"},
    "match.thin": {"en": "the best candidates share only a few words or a loose meaning with the query (best "
                         "similarity {sim}, word coverage {cov}); {verdict}"},
    "match.thin_words": {"en": "the best candidates share only a few of the query's words (word coverage {cov}); "
                               "{verdict}"},
    "match.across_scripts": {"en": "the question and the work are in different languages and the closest work is "
                                   "only loosely similar in meaning (best similarity {sim}); {verdict}"},
    "match.across_words": {"en": "the question is in another language than most of the indexed work, and word "
                                 "search matched only the few words they share (word coverage {cov}); {verdict}"},
    "match.across_hint": {"en": "the question is in another language than most of the indexed work: word search "
                                "cannot cross languages. Turn on search by meaning (`akw config set semantic.enabled "
                                "true`, then `akw reindex`) or ask in the work's language"},
    "match.verdict_weak": {"en": "treat the items as leads, not as the answer"},
    "match.verdict_none": {"en": "nothing is returned; rephrase with the words the work would use"},
    "filter.unknown_workspace": {"en": "filters.workspaces: {workspace!r} names no indexed workspace (give its id, "
                                       "path, folder name or title; known: {known})"},
    "budget.exceeded": {"en": "even without items the response exceeds max_tokens={max_tokens}"},
    # -- errors: English ---------------------------------------------------------------------
    "search.no_source": {"en": "no lane can answer: {reasons}"},
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
    templates = MESSAGES[key]
    return templates.get(lang, templates["en"]).format(**values)
