"""Issue 28: one language per output — `ui.language: auto|ru|en` (core/language.py).

`auto` follows the text typed (a query, a task), else the locale; `ru`/`en` win. A search's texts
(routing reason, why-texts, warnings) and the CLI's labels around them speak that one language;
data (titles, snippets, ids, paths) is never translated and `--json` keeps its fields and codes.
The text checks work on words: a word of the other language may appear only when the answer's
data carries it (the query, a title, a snippet, an identifier such as a lane or an intent).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_run import akw_json, run
from homes import BuiltHome

from warehouse.cli.labels import LABELS
from warehouse.core.language import output_language
from warehouse.core.settings import Settings
from warehouse.search.messages import MESSAGES

SEED_SCHEMA = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "003_6a60be907bed1bea.txt"
RU = "кто чинил доступ к MySQL на 176.99.5.35"
EN = "who restored MySQL root access"
TEXT_KEYS = {"why", "reason", "message", "degradation_reason"}  # the texts that follow the language
_WORD = re.compile(r"[^\W\d_]+")
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def _catalogue_words(lang: str) -> set[str]:
    templates = [v.get(lang, "") for cat in (LABELS, MESSAGES) for v in cat.values()]
    return _words(re.sub(r"\{[^}]*\}", " ", " ".join(templates)))


# English words of the catalogues that no Russian text uses (identifiers such as `akw` or find_agent are in both)
EN_ONLY = _catalogue_words("en") - _catalogue_words("ru")


def _data_words(v: Any, key: str = "", skip: frozenset[str] = frozenset(TEXT_KEYS)) -> set[str]:
    """Every word the document carries outside the texts in `skip` (dict keys too: identifiers)."""
    if key in skip:
        return set()
    if isinstance(v, dict):
        return set().union(*(_words(k) | _data_words(x, k, skip) for k, x in v.items())) if v else set()
    if isinstance(v, list):
        return set().union(*(_data_words(x, key, skip) for x in v)) if v else set()
    return _words(str(v)) if isinstance(v, str) else set()


def _foreign(text: str, lang: str, data: set[str]) -> set[str]:
    """Words of `text` in the other language than `lang` that the data does not account for."""
    if lang == "en":
        return {w for w in _words(text) if _CYRILLIC.search(w) and w not in data}
    return {w for w in _words(text) if w in EN_ONLY and w not in data}


def _texts(doc: dict[str, Any]) -> list[str]:
    """The language-following texts of a search response."""
    out = [doc["routing"]["reason"]] + [w for a in doc["actors"] for w in a["why"]]
    for lane in doc["lanes"].values():
        if lane:
            out += [w for it in lane["items"] for w in it["why"]] + [lane.get("degradation_reason") or ""]
    return out + [w["message"] for w in doc["warnings"]] + [e["message"] for e in doc["errors"]]


@pytest.fixture(scope="module")
def loc(small: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, ...]:
    wh = small.copy(tmp_path_factory.mktemp("ui-language"))
    return ("--dsh-home", str(wh.paths.dsh_home), "--autoclaw-root", str(wh.paths.autoclaw_root),
            "--home", str(wh.paths.home))


def _env(setting: str | None = None, locale: str = "C.UTF-8", **extra: str) -> dict[str, str]:
    env = {"LANG": locale, "LC_ALL": "", "LC_MESSAGES": "", **extra}
    return {**env, "AKW_UI__LANGUAGE": setting} if setting else env


# -- the decision -------------------------------------------------------------------------------------
def test_the_setting_wins_then_the_typed_text_then_the_locale() -> None:
    assert output_language("en", "кто чинил") == "en" and output_language("ru", "who fixed") == "ru"
    assert output_language("auto", "кто чинил mysql") == "ru"
    assert output_language("auto", "who fixed mysql", {"LANG": "ru_RU.UTF-8"}) == "en"
    assert output_language("auto", "176.99.5.35", {"LANG": "ru_RU.UTF-8"}) == "ru"  # no letters: the locale
    assert output_language("auto", None, {"LANG": "en_US.UTF-8"}) == "en"
    assert output_language("auto", None, {"LC_ALL": "ru_RU.UTF-8", "LANG": "en_US.UTF-8"}) == "ru"
    assert output_language("auto", None, {"LC_ALL": "", "LC_MESSAGES": "C", "LANG": "ru_RU"}) == "en"
    assert output_language("auto", "", {}) == "en"


def test_the_setting_is_validated_with_a_coded_error(loc: tuple[str, ...]) -> None:
    assert Settings().ui.language == "auto"
    assert Settings().with_value("ui.language", "ru").ui.language == "ru"
    r = run(*loc, "config", "set", "ui.language=fr", "--json")
    err = r.doc()["errors"][0]
    assert r.code == 2 and err["code"] == "KNOWLEDGE_CONFIG_INVALID" and err["key"] == "ui.language", err
    code, shown = akw_json(*loc, "config", "show", env=_env("ru"))
    assert code == 0 and shown["agent-knowledge"]["ui"] == {"language": "ru"}  # the environment override


def test_the_catalogues_speak_one_language_per_entry() -> None:
    """No English word inside a Russian text (identifiers in backticks or shared by both are fine)."""
    for cat in (LABELS, MESSAGES):
        for key, v in cat.items():
            if "ru" in v:
                bare = re.sub(r"`[^`]*`|\{[^}]*\}", " ", v["ru"])
                assert not (_words(bare) & EN_ONLY), (key, _words(bare) & EN_ONLY)
                assert set(re.findall(r"\{(\w+)", v["ru"])) <= set(re.findall(r"\{(\w+)", v["en"])), key


# -- search: JSON -----------------------------------------------------------------------------------
@pytest.mark.parametrize("query,setting,lang", [(RU, None, "ru"), (EN, None, "en"), (RU, "en", "en"),
                                                (EN, "ru", "ru")])
def test_search_texts_follow_the_decided_language_and_the_contract_holds(
        loc: tuple[str, ...], query: str, setting: str | None, lang: str) -> None:
    code, doc = akw_json(*loc, "search", query, env=_env(setting))
    assert code == 0 and doc["actors"] and doc["lanes"]["episodes"]["items"]
    data = _data_words(doc)
    for text in _texts(doc):
        assert not _foreign(text, lang, data), (lang, text)
    reason = doc["routing"]["reason"]
    assert ("уверенность" in reason) == (lang == "ru") and ("confidence" in reason) == (lang == "en")
    first_why = doc["lanes"]["episodes"]["items"][0]["why"][0]
    assert first_why.startswith("совпадение" if lang == "ru" else "fts:"), first_why
    jsonschema = pytest.importorskip("jsonschema")
    if not SEED_SCHEMA.exists():
        pytest.skip(f"seed schema not found at {SEED_SCHEMA}")
    jsonschema.Draft202012Validator(json.loads(SEED_SCHEMA.read_text(encoding="utf-8"))).validate(doc)


def test_a_query_without_letters_follows_the_locale(loc: tuple[str, ...]) -> None:
    _, ru = akw_json(*loc, "search", "176.99.5.35", env=_env(locale="ru_RU.UTF-8"))
    _, en = akw_json(*loc, "search", "176.99.5.35", env=_env(locale="C.UTF-8"))
    assert "уверенность" in ru["routing"]["reason"] and "confidence" in en["routing"]["reason"]
    assert [w["code"] for w in ru["warnings"]] == [w["code"] for w in en["warnings"]]  # codes never change


# -- search: text at 80 and 120 columns -------------------------------------------------------------------
@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("query,setting,lang", [(RU, None, "ru"), (EN, None, "en"), (RU, "en", "en"),
                                                (EN, "ru", "ru")])
def test_search_text_speaks_one_language(loc: tuple[str, ...], columns: int, query: str, setting: str | None,
                                         lang: str) -> None:
    r = run(*loc, "search", query, env=_env(setting, COLUMNS=str(columns)))
    assert r.code == 0, r.stderr
    assert all(len(ln) <= columns for ln in r.stdout.splitlines())
    _, doc = akw_json(*loc, "search", query, env=_env(setting))
    assert not _foreign(r.stdout, lang, _data_words(doc)), r.stdout
    heads = ("почему:", "доказательства:", "кто (") if lang == "ru" else ("why:", "evidence:", "who (")
    assert all(h in r.stdout for h in heads), r.stdout


# -- other commands: the locale, or the task typed ------------------------------------------------------
@pytest.mark.parametrize("locale,lang", [("ru_RU.UTF-8", "ru"), ("C.UTF-8", "en")])
def test_status_and_schedule_follow_the_locale(loc: tuple[str, ...], locale: str, lang: str) -> None:
    status = run(*loc, "status", env=_env(locale=locale, COLUMNS="120"))
    schedule = run(*loc, "schedule", "show", env=_env(locale=locale, COLUMNS="120"))
    assert status.code == 0 and schedule.code == 0, status.stderr + schedule.stderr
    _, doc = akw_json(*loc, "status")
    _, sched = akw_json(*loc, "schedule", "show")
    # the status document's own texts (reason, fix, notes) are English documents, shown as they are
    assert not _foreign(status.stdout, lang, _data_words(doc, skip=frozenset())), status.stdout
    assert not _foreign(schedule.stdout, lang, _data_words(sched)), schedule.stdout
    assert ("следующий запуск:" in status.stdout) == (lang == "ru") and ("next run:" in status.stdout) == (
        lang == "en")
    assert run(*loc, "status", env=_env("en", locale="ru_RU.UTF-8")).stdout == run(*loc, "status",
                                                                                   env=_env()).stdout


def test_a_card_with_a_task_follows_the_task(loc: tuple[str, ...]) -> None:
    ru = run(*loc, "get", "skill", "mysql-access-restore", "--task", "восстановить доступ к MySQL", env=_env())
    en = run(*loc, "get", "skill", "mysql-access-restore", "--task", "restore MySQL access",
             env=_env(locale="ru_RU.UTF-8"))
    assert ru.code == 0 and en.code == 0, ru.stderr + en.stderr
    assert "применимость" in ru.stdout and "applicability" not in ru.stdout
    assert "applicability" in en.stdout and "применимость" not in en.stdout
