"""Deterministic query routing of contract 000 §6: trigger words → intent, lane weights, reason.

No model is asked: a fixed RU/EN trigger table is matched on word stems (Russian endings such
as решал/решала/решали, навыка/навыков), so the same query always routes the same way. A
doubtful (mixed) question keeps the lanes of every triggered intent at the higher of their
weights — a routing mistake must not lose data (§6).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.language import output_language
from warehouse.search.contract import LANES, MODES, Routing
from warehouse.search.messages import Lang, msg

# §6 table: intent → lane weights.
WEIGHTS: dict[str, dict[str, float]] = {
    "find_agent": {"episodes": 1.0, "skills": 0.6, "code": 0.4},
    "find_code": {"code": 1.0, "episodes": 0.3, "skills": 0.2},
    "find_skill": {"skills": 1.0, "episodes": 0.5, "code": 0.2},
    "find_knowledge": {"episodes": 0.8, "code": 0.8, "skills": 0.4},
}
# Tie order when two intents have the same number of hits: the order of the §6 table.
_PRIORITY = ("find_agent", "find_code", "find_skill")

CONF_OVERRIDE = 1.0
CONF_SINGLE = 0.86
CONF_MIXED = 0.55
CONF_MIXED3 = 0.45
CONF_NONE = 0.5

_RU = r"[а-яё]{0,4}"  # Russian inflection tail: решал|а|и, навык|а|ов, сесси|я|ями
_EN = r"(?:s|es|ed|d|ing|ies)?"


@dataclass(frozen=True)
class Trigger:
    label: str  # the canonical word, for reading the table
    pattern: re.Pattern[str]  # fullmatch against one lowercased token (or the joined phrase)
    words: int = 1  # tokens the pattern spans (phrases such as "how to")


def _t(label: str, regex: str, words: int = 1) -> Trigger:
    return Trigger(label, re.compile(regex), words)


def _ru(stem: str, tail: str = _RU) -> Trigger:
    return _t(stem, stem + tail)


def _en(stem: str, tail: str = _EN) -> Trigger:
    return _t(stem, stem + tail)


def _exact(word: str) -> Trigger:
    return _t(word, re.escape(word))


# "навык"/"skill" appear in both the agent and the skill rows of §6; they count for find_skill
# only, so "навык X" is a skill question and "кто применял навык X" a mixed agent+skill one.
TRIGGERS: dict[str, tuple[Trigger, ...]] = {
    "find_agent": (
        _exact("кто"), _exact("когда"), _exact("почему"), _exact("зачем"),
        _ru("решал"), _ru("решил"), _ru("делал"), _ru("сделал"), _ru("чинил"), _ru("починил"),
        _ru("исправил"), _ru("сесси"), _ru("агент"), _ru("субагент"),
        _exact("who"), _exact("whom"), _exact("whose"), _exact("when"), _exact("why"), _exact("did"),
        _en("fix"), _t("solved", r"solv(?:e|es|ed|ing)"), _en("session"), _en("agent"), _en("subagent"),
    ),
    "find_code": (
        _exact("где"), _ru("функци"), _ru("класс"), _ru("символ"), _ru("вызыва"), _ru("вызов"),
        _ru("затрон"), _ru("схем"), _ru("таблиц"), _ru("маршрут"), _ru("политик"), _ru("файл"),
        _ru("код", r"[а-яё]{0,2}"),
        _exact("where"), _en("function"), _en("class"), _en("symbol"), _en("call", r"(?:s|ed|ing|ers?)?"),
        _en("impact"), _en("schema", r"(?:s|ta)?"), _en("table"), _t("route", r"rout(?:e|es|ed|ing)"),
        _t("policy", r"polic(?:y|ies)"), _en("file"), _en("code"), _en("method"),
    ),
    "find_skill": (
        _ru("навык"), _ru("скилл"), _t("применял", "применя" + _RU), _ru("инструкци"),
        _t("чек-лист", "чек-?лист" + _RU),
        _en("skill"), _exact("whentouse"), _t("how to", r"how to", 2), _en("instruction"),
        _en("checklist"), _t("applied", r"appl(?:y|ies|ied|ying)"),
    ),
}

# Words that name a kind of actor: a query with one asks what an agent is ("an agent that reviews
# database migrations"), so actor profiles may answer it (lane_runner, fusion.nominate).
ROLE_WORDS: tuple[Trigger, ...] = (
    _ru("агент"), _ru("субагент"), _ru("сабагент"), _ru("тиммейт"), _ru("помощник"), _ru("участник"),
    _en("agent"), _en("subagent"), _en("teammate"), _t("team member", r"team members?", 2), _en("assistant"),
)

_TOKEN = re.compile(r"[0-9a-zа-яё]+(?:-[0-9a-zа-яё]+)*", re.IGNORECASE)


def _tokens(query: str) -> list[str]:
    """Lowercased words; hyphenated words are kept whole and also split ("кто-то" → кто)."""
    out: list[str] = []
    for m in _TOKEN.finditer(query.lower().replace("ё", "е")):
        word = m.group(0)
        out.append(word)
        if "-" in word:
            out.extend(word.split("-"))
    return out


def triggers_found(query: str) -> dict[str, list[str]]:
    """Intent → the query words that fired its triggers, in table order (empty intents omitted)."""
    tokens = _tokens(query)
    phrases = {" ".join(tokens[i:i + 2]) for i in range(len(tokens) - 1)}
    found: dict[str, list[str]] = {}
    for intent, triggers in TRIGGERS.items():
        words: list[str] = []
        for trig in triggers:
            pool = sorted(phrases) if trig.words == 2 else tokens
            hit = next((tok for tok in pool if trig.pattern.fullmatch(tok)), None)
            if hit is not None and hit not in words:
                words.append(hit)
        if words:
            found[intent] = words
    return found


def names_a_role(query: str) -> bool:
    """Whether the query names a kind of actor (ROLE_WORDS): it may be answered by actor profiles."""
    tokens = _tokens(query)
    phrases = [" ".join(tokens[i:i + 2]) for i in range(len(tokens) - 1)]
    return any(trig.pattern.fullmatch(tok) for trig in ROLE_WORDS for tok in (phrases if trig.words == 2 else tokens))


def route(query: str, mode: str, include: list[str], lang: Lang | None = None) -> Routing:
    """Pick intent, lanes and weights for a query; `mode` other than auto wins over the heuristic.
    `lang`: the answer's language (the search decides it once); None: the query's (core/language)."""
    if mode not in MODES:
        raise KnowledgeError(Code.INVALID_REQUEST, msg("request.unknown_mode", "en", mode=mode), field="mode")
    unknown = sorted(set(include) - set(LANES))
    if unknown:
        raise KnowledgeError(Code.INVALID_REQUEST, msg("request.unknown_lane", "en", lane=unknown[0]),
                             field="include")
    lanes = [lane for lane in LANES if lane in include]
    lang = lang or output_language("auto", query)

    if mode != "auto":
        intents, confidence, hits = [mode], CONF_OVERRIDE, {}
    else:
        hits = triggers_found(query)
        intents = sorted(hits, key=lambda i: (-len(hits[i]), _PRIORITY.index(i))) or ["find_knowledge"]
        confidence = {1: CONF_SINGLE, 2: CONF_MIXED}.get(len(intents), CONF_MIXED3) if hits else CONF_NONE

    weights = {lane: max(WEIGHTS[i][lane] for i in intents) for lane in lanes}
    reason = _reason(mode, intents, hits, weights, confidence, lang)
    return Routing(intent=intents[0], lanes=lanes, confidence=confidence, reason=reason, weights=weights)


def lane_weights(routing: Routing) -> dict[str, float]:
    """Fusion weights per routed lane (`fusion.weights`); derived from the intent if not carried."""
    if routing.weights is not None:
        return {lane: routing.weights[lane] for lane in routing.lanes if lane in routing.weights}
    return {lane: WEIGHTS[routing.intent][lane] for lane in routing.lanes}


def confidence_level(confidence: float) -> str:
    """The words of §6: high | medium | low."""
    return "high" if confidence >= 0.8 else "medium" if confidence >= CONF_MIXED else "low"


def _reason(mode: str, intents: list[str], hits: dict[str, list[str]], weights: dict[str, float],
            confidence: float, lang: Lang) -> str:
    """What decided the intent (explicit mode, no triggers, the trigger words), then lanes and confidence."""
    lanes = ", ".join(f"{lane} {w:g}" for lane, w in weights.items()) or msg("routing.no_lanes", lang)
    level = msg(f"routing.confidence.{confidence_level(confidence)}", lang)
    tail = msg("routing.tail", lang, lanes=lanes, confidence=level)
    if mode != "auto":
        return msg("routing.explicit", lang, mode=mode, tail=tail)
    if not hits:
        return msg("routing.no_triggers", lang, tail=tail)
    if len(intents) == 1:
        return msg("routing.single", lang, words=_quote(hits[intents[0]], lang), intent=intents[0], tail=tail)
    named = " + ".join(f"{i} ({_quote(hits[i], lang)})" for i in intents)
    return msg("routing.mixed", lang, named=named, tail=tail)


def _quote(labels: list[str], lang: Lang) -> str:
    return ", ".join(msg("routing.quoted", lang, word=x) for x in labels)
