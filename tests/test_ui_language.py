"""Issue 28: one language per output — `ui.language: auto|ru|en` (core/language.py).

`auto` follows the text typed (a query, a task), else the locale; `ru`/`en` win. A search's texts
(routing reason, why-texts, warnings) and the CLI's labels around them speak that one language;
data (titles, snippets, ids, paths) is never translated and `--json` keeps its fields and codes.
The text checks work on words: a word of the other language may appear only when the answer's
data carries it (the query, a title, a snippet, an identifier such as a lane or an intent).
Cards and dispatch plans follow the same decision for the texts they generate (cards/texts.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_run import akw_json, run
from homes import BuiltHome

from warehouse.cards.contract import CARD_MODELS, card_json_schema
from warehouse.cards.texts import TEXTS
from warehouse.cli.labels import LABELS
from warehouse.core.language import output_language
from warehouse.core.settings import Settings
from warehouse.dispatch.contract import DispatchResponse, response_json_schema
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
    templates = [v.get(lang, "") for cat in (LABELS, MESSAGES, TEXTS) for v in cat.values()]
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
    for cat in (LABELS, MESSAGES, TEXTS):
        for key, v in cat.items():
            if "ru" in v:
                bare = re.sub(r"`[^`]*`|\{[^}]*\}", " ", v["ru"])
                assert not (_words(bare) & EN_ONLY), (key, _words(bare) & EN_ONLY)
                assert set(re.findall(r"\{(\w+)", v["ru"])) <= set(re.findall(r"\{(\w+)", v["en"])), key


def test_stored_values_have_one_table_for_the_cli_and_the_apps() -> None:
    """A run's outcome, a state, a lane read the same in the CLI's text form and in the apps (issue 28): the
    apps printed "published" on a Russian page."""
    from warehouse import ui
    from warehouse.cli import labels
    from warehouse.core import language

    for v in ("published", "noop", "failed", "degraded", "success", "episodes", True):
        assert ui.value_text(v, "ru") == labels.value(v, "ru") == language.value(v, "ru") != str(v)
        assert ui.value_text(v, "en") == str(v)
    assert ui.value_text("gen-000001-ak-1.duckdb", "ru") == "gen-000001-ak-1.duckdb"  # data stays as it is


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


# -- cards and dispatch plans: the texts they generate (cards/texts.py) ----------------------------------
RU_TASK = "восстановить доступ к MySQL через mysql-access-restore"
EN_TASK = "restore MySQL access with mysql-access-restore"
# the keys whose values are generated sentences in a card or a plan (everything else is data or identifiers)
CARD_TEXT_KEYS = frozenset({"text", "message", "note", "origin", "verify", "rest", "reason"})
PLAN_TEXT_KEYS = frozenset({"why", "reasons", "risks", "requires", "message", "prompt", "details", "description",
                            "reason", "degradation_reason"})
_QUOTED = re.compile(r"<untrusted-data[^>]*>.*?</untrusted-data>", re.DOTALL)  # text quoted from the sources


def _generated(v: Any, keys: frozenset[str], key: str = "") -> list[str]:
    """The generated texts of a card or plan: every string under one of `keys`, its quotes of sources cut out.
    Evidence references (`evidence[].kind/id/note`: `absent`, `missing`, `after <event id>`) are pointers that
    callers match on, not sentences: they keep their values in every language."""
    if key == "evidence":
        return []
    if isinstance(v, dict):
        return [t for k, x in v.items() for t in _generated(x, keys, k)]
    if isinstance(v, list):
        return [t for x in v for t in _generated(x, keys, key)]
    if not isinstance(v, str) or key not in keys or v.startswith("akw "):  # a command to type is no sentence
        return []
    return [re.sub(r"`[^`]*`", " ", _QUOTED.sub(" ", v))]  # identifiers in backticks are the same in both


def _without(v: Any, keys: frozenset[str]) -> Any:
    """The document with its generated texts removed: what must not change with the language."""
    if isinstance(v, dict):
        return {k: _without(x, keys) for k, x in v.items() if k not in keys}
    if isinstance(v, list):
        return [_without(x, keys) for x in v]
    return v


def _speaks(doc: dict[str, Any], keys: frozenset[str], lang: str) -> list[str]:
    """The generated texts of `doc` after checking they carry no word of the other language (data aside)."""
    texts = _generated(doc, keys)
    data = _data_words(doc, skip=keys)
    assert texts
    for text in texts:
        assert not _foreign(text, lang, data), (lang, text, _foreign(text, lang, data))
    return texts


def test_the_card_and_plan_texts_have_the_same_placeholders_in_both_languages() -> None:
    for key, v in TEXTS.items():
        fields = set(re.findall(r"\{(\w+)", v["en"]))
        assert set(re.findall(r"\{(\w+)", v.get("ru", v["en"]))) == fields, key


@pytest.mark.parametrize("kind", ["skill", "agent"])
def test_a_russian_task_gets_a_russian_card_and_en_keeps_it_english(loc: tuple[str, ...], kind: str) -> None:
    if kind == "skill":
        ident = "mysql-access-restore"
    else:
        _, found = akw_json(*loc, "search", RU, env=_env())
        ident = found["actors"][0]["actor_id"]
    code, ru = akw_json(*loc, "get", kind, ident, "--task", RU_TASK, env=_env())
    code_en, en = akw_json(*loc, "get", kind, ident, "--task", RU_TASK, env=_env("en"))
    assert code == 0 and code_en == 0
    ru_texts, en_texts = _speaks(ru, CARD_TEXT_KEYS, "ru"), _speaks(en, CARD_TEXT_KEYS, "en")
    answer = ru["task_answer"] if kind == "skill" else {"task_fit": ru["task_fit"]}
    points = [p["text"] for section in answer.values() if isinstance(section, list) for p in section
              if isinstance(p, dict)]
    assert points and all(_CYRILLIC.search(_QUOTED.sub(" ", t)) for t in points), points
    # the same texts in the same places, in words of each language (the English ones name the task's Russian
    # words only as data: `_speaks` checked them word by word)
    assert len(ru_texts) == len(en_texts) and all(_CYRILLIC.search(t) for t in ru_texts if t not in en_texts)
    assert [t for t in ru_texts if t not in en_texts]
    # only the sentences differ: fields, enum values, evidence and data are the same in both languages
    assert _without(ru, CARD_TEXT_KEYS) == _without(en, CARD_TEXT_KEYS)
    # a fixed setting wins over the locale too
    _, auto_en = akw_json(*loc, "get", kind, ident, "--task", RU_TASK, env=_env("en", locale="ru_RU.UTF-8"))
    assert auto_en == en
    jsonschema = pytest.importorskip("jsonschema")
    for doc in (ru, en):
        jsonschema.Draft202012Validator(card_json_schema(kind)).validate(doc)
        CARD_MODELS[kind].model_validate(doc)


def test_a_card_without_a_task_follows_the_locale(loc: tuple[str, ...]) -> None:
    """No typed text: the locale decides, as for the CLI's labels around the card (a cut note, notes, notices)."""
    code, ru = akw_json(*loc, "get", "skill", "mysql-access-restore", "--max-chars", "200",
                        env=_env(locale="ru_RU.UTF-8"))
    _, en = akw_json(*loc, "get", "skill", "mysql-access-restore", "--max-chars", "200", env=_env())
    assert code == 0 and ru["truncated"]
    assert "обрезано" in ru["body"] and "cut at" in en["body"]
    _speaks(ru, CARD_TEXT_KEYS, "ru")
    _speaks(en, CARD_TEXT_KEYS, "en")


@pytest.mark.parametrize("task,commit", [({"title": "Восстановить root-доступ к MySQL",
                                           "text": f"root получает ERROR 1045; {RU_TASK}",
                                           "acceptance": ["root входит с новым паролем"],
                                           "constraints": ["без перезапуска днём"]}, False),
                                         ({"text": RU_TASK}, True),  # a commit without confirm: refused, in words
                                         ({"text": "покрасить стены офиса в синий и заказать пиццу"}, False)])
def test_a_russian_task_gets_a_russian_dispatch_plan_and_en_keeps_it_english(
        loc: tuple[str, ...], tmp_path: Path, task: dict[str, Any], commit: bool) -> None:
    request = {"schema": "knowledge.dispatch/v1", "task": task,
               **({"dry_run": False, "commit": True} if commit else {})}
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request, ensure_ascii=False), encoding="utf-8")
    _, ru = akw_json(*loc, "dispatch", "--request", str(path), env=_env())
    _, en = akw_json(*loc, "dispatch", "--request", str(path), env=_env("en"))
    assert ru["mode"] == "dry_run" and not ru.get("assignment"), ru  # nothing recorded
    if commit:
        assert [e["code"] for e in ru["errors"]] == ["KNOWLEDGE_DISPATCH_UNAUTHORIZED"], ru["errors"]
    if ru["target"] is None:
        assert [e["code"] for e in ru["errors"]] == ["KNOWLEDGE_NOT_FOUND"] and ru["suggestion"]
    ru_texts, en_texts = _speaks(ru, PLAN_TEXT_KEYS, "ru"), _speaks(en, PLAN_TEXT_KEYS, "en")
    assert all(_CYRILLIC.search(t) for t in ru["context_pack"]["risks"] + [e["message"] for e in ru["errors"]])
    if ru["target"] is not None:
        assert all(_CYRILLIC.search(w) for w in ru["target"]["why"] + ru["target"]["dispatch"]["reasons"])
        assert _CYRILLIC.search(ru["handoff"]["requires"])
    assert any(_CYRILLIC.search(t) for t in ru_texts)
    assert not any(_CYRILLIC.search(t) for t in en["context_pack"]["risks"] + [e["message"] for e in en["errors"]])
    assert en_texts  # the package's brief quotes the (Russian) task: `_speaks` checked it word by word
    # only the sentences differ: the target, its choice, the mode, codes, ids and evidence are the same
    assert _without(ru, PLAN_TEXT_KEYS) == _without(en, PLAN_TEXT_KEYS)
    jsonschema = pytest.importorskip("jsonschema")
    for doc in (ru, en):
        jsonschema.Draft202012Validator(response_json_schema()).validate(doc)
        DispatchResponse.model_validate(doc)
