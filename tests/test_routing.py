"""Routing of contract §6: RU/EN triggers on word stems, exact table weights, mixed, override, include."""

from __future__ import annotations

import pytest

from warehouse.core.errors import KnowledgeError
from warehouse.search.contract import INTENTS, LANES
from warehouse.search.routing import (
    CONF_MIXED,
    CONF_NONE,
    CONF_SINGLE,
    TRIGGERS,
    WEIGHTS,
    lane_weights,
    route,
    triggers_found,
)

ALL = list(LANES)

AGENT = {"episodes": 1.0, "code": 0.4, "skills": 0.6}
CODE = {"episodes": 0.3, "code": 1.0, "skills": 0.2}
SKILL = {"episodes": 0.5, "code": 0.2, "skills": 1.0}
KNOWLEDGE = {"episodes": 0.8, "code": 0.8, "skills": 0.4}


def test_table_matches_spec() -> None:
    assert WEIGHTS == {"find_agent": AGENT, "find_code": CODE, "find_skill": SKILL, "find_knowledge": KNOWLEDGE}
    assert set(WEIGHTS) == set(INTENTS) and set(TRIGGERS) == set(INTENTS) - {"find_knowledge"}


@pytest.mark.parametrize(("query", "intent", "weights"), [
    ("кто чинил доступ к MySQL на 176.99.5.35", "find_agent", AGENT),
    ("когда обновляли nginx", "find_agent", AGENT),
    ("почему упал деплой", "find_agent", AGENT),
    ("она решала эту задачу", "find_agent", AGENT),
    ("они решали задачу с базой", "find_agent", AGENT),
    ("в какой сессии обсуждали бэкап", "find_agent", AGENT),
    ("агенты по postgres", "find_agent", AGENT),
    ("who fixed the login bug", "find_agent", AGENT),
    ("When did we rotate certificates", "find_agent", AGENT),
    ("agents that touched billing", "find_agent", AGENT),
    ("где определена функция parse_config", "find_code", CODE),
    ("какие классы затронет изменение", "find_code", CODE),
    ("схема таблицы users", "find_code", CODE),
    ("маршрут /api/v1/login", "find_code", CODE),
    ("where is the function load_settings", "find_code", CODE),
    ("callers of symbol Foo", "find_code", CODE),
    ("impact of changing the retry policy", "find_code", CODE),
    ("навык для clean-bom-crlf", "find_skill", SKILL),
    ("список навыков по деплою", "find_skill", SKILL),
    ("описание навыка server-31", "find_skill", SKILL),
    ("инструкция по релизу", "find_skill", SKILL),
    ("skill for release notes", "find_skill", SKILL),
    ("how to rotate tls certificates", "find_skill", SKILL),
    ("release checklist", "find_skill", SKILL),
    ("whenToUse release", "find_skill", SKILL),
    ("postgres replication lag", "find_knowledge", KNOWLEDGE),
    ("бэкап базы mysql", "find_knowledge", KNOWLEDGE),
])
def test_single_intent(query: str, intent: str, weights: dict[str, float]) -> None:
    r = route(query, "auto", ALL)
    assert r.intent == intent
    assert r.weights == weights and lane_weights(r) == weights
    assert r.lanes == ALL
    assert r.confidence == (CONF_NONE if intent == "find_knowledge" else CONF_SINGLE)


def test_trigger_words_are_reported_in_reason() -> None:
    r = route("кто решала задачу", "auto", ALL)
    assert "«кто»" in r.reason and "«решала»" in r.reason and "find_agent" in r.reason
    assert "уверенность высокая" in r.reason
    r = route("who fixed it", "auto", ALL)
    assert '"who"' in r.reason and "confidence high" in r.reason


def test_no_false_stem_hits() -> None:
    assert triggers_found("кодекс whenever whomever classic agency") == {}
    assert triggers_found("решение принято") == {}
    assert triggers_found("postgres") == {}


def test_mixed_question_keeps_both_lanes_at_max_weight() -> None:
    r = route("кто менял функцию авторизации", "auto", ALL)
    assert r.intent == "find_agent"  # tie on hits → table order
    assert r.confidence == CONF_MIXED < CONF_SINGLE
    assert r.weights == {"episodes": 1.0, "code": 1.0, "skills": 0.6}
    assert "смешанный" in r.reason and "find_agent" in r.reason and "find_code" in r.reason

    r = route("who calls function foo in which file", "auto", ALL)
    assert r.intent == "find_code"  # more code hits (calls, function, file) than agent hits (who)
    assert r.weights == {"episodes": 1.0, "code": 1.0, "skills": 0.6}
    assert "mixed question" in r.reason and "find_agent" in r.reason

    r = route("кто применял навык server-31", "auto", ALL)
    assert r.intent == "find_skill"  # навык + применял outnumber кто
    assert r.weights == {"episodes": 1.0, "code": 0.4, "skills": 1.0}


def test_mode_overrides_heuristics() -> None:
    r = route("кто чинил mysql", "find_code", ALL)
    assert (r.intent, r.confidence, r.weights) == ("find_code", 1.0, CODE)
    assert "задан явно" in r.reason
    r = route("who fixed mysql", "find_skill", ALL)
    assert (r.intent, r.confidence, r.weights) == ("find_skill", 1.0, SKILL)
    assert "set explicitly" in r.reason
    r = route("anything", "find_knowledge", ALL)
    assert (r.intent, r.confidence) == ("find_knowledge", 1.0)


def test_lanes_restricted_to_include_in_canonical_order() -> None:
    r = route("где функция login", "auto", ["skills", "code"])
    assert r.lanes == ["code", "skills"]
    assert r.weights == {"code": 1.0, "skills": 0.2} and lane_weights(r) == r.weights


def test_reason_language_follows_query() -> None:
    assert "no trigger words" in route("postgres lag", "auto", ALL).reason
    assert "явных признаков нет" in route("лаг репликации", "auto", ALL).reason


def test_lane_weights_without_carried_weights() -> None:
    r = route("где функция", "auto", ["episodes", "code"]).model_copy(update={"weights": None})
    assert lane_weights(r) == {"episodes": 0.3, "code": 1.0}


def test_deterministic() -> None:
    q = "кто где навык how to"
    assert route(q, "auto", ALL) == route(q, "auto", ALL)


@pytest.mark.parametrize(("mode", "include", "field"), [("fast", ALL, "mode"), ("auto", ["web"], "include")])
def test_invalid_arguments(mode: str, include: list[str], field: str) -> None:
    with pytest.raises(KnowledgeError) as exc:
        route("q", mode, include)
    assert exc.value.code == "KNOWLEDGE_INVALID_REQUEST" and exc.value.details["field"] == field
