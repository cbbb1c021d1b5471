"""The answer's match (issue 24, docs/search.md "Match"): strong, weak or none, and what each does.

The rules are unit-tested on fusion-shaped rows; the shared generated home shows them end to end:
a query that names something no indexed work mentions is an empty answer with its reason, a weak
one keeps its items with a warning, and dispatch chooses no actor from a weak search.
"""

from __future__ import annotations

from typing import Any

import pytest
from homes import BuiltHome, q

from warehouse.api import Warehouse
from warehouse.core.errors import Code
from warehouse.search import match


def _row(lane: str, doc: int, coverage: float) -> tuple[Any, ...]:
    """A slots.sql row as fusion returns it (lane, doc_id, doc_key, rrf, rel, coverage, …)."""
    return (lane, doc, f"k{doc}", 0.1, 0.5, coverage, 1, "", None)


ENGLISH_WORK = {"server": 10, "pygam": 9, "css": 16}  # df of terms an English index knows


def test_lexical_only_levels_follow_coverage() -> None:
    groups = [["mysql"], ["root"]]
    df = {"mysql": 5, "root": 7}
    assert match.judge([_row("episodes", 1, 0.8)], None, groups, df, []).level == "strong"
    assert match.judge([_row("episodes", 1, 0.45)], None, groups, df, []).level == "weak"
    assert match.judge([_row("episodes", 1, 0.2)], None, groups, df, []).level == "none"
    assert match.judge([], None, groups, df, []).level == "none"


def test_a_name_the_index_never_saw_refuses_unless_the_rest_matches() -> None:
    groups = [["numpi"], ["fft"], ["leak"]]
    df = {"numpi": 30, "leak": 3}
    sims = {("episodes", 1): 0.56}  # the nearest numpy work is similar, and still not an answer
    got = match.judge([_row("episodes", 1, 0.3)], sims, groups, df, ["fft"])
    assert (got.level, got.reason, got.names) == ("none", "match.unknown_names", ("fft",))
    assert match.judge([_row("episodes", 1, 0.7)], sims, groups, df, ["fft"]).level == "weak"  # a lead at best


def test_semantic_levels_follow_similarity_and_coverage() -> None:
    groups = [["vue"], ["todo"]]
    df = {"vue": 6, "todo": 9}
    row = [_row("episodes", 1, 0.1)]
    assert match.judge(row, {("episodes", 1): 0.55}, groups, df, []).level == "strong"
    assert match.judge(row, {("episodes", 1): 0.42}, groups, df, []).level == "weak"
    assert match.judge(row, {("episodes", 1): 0.30}, groups, df, []).level == "none"
    assert match.judge([_row("episodes", 1, 0.36)], {}, groups, df, []).level == "weak"  # thin words, no meaning


def test_across_languages_meaning_decides_and_words_do_not() -> None:
    groups = [["тетрис"], ["pygam", "pygame"]]  # "где агент делал тетрис на pygame?" over English work
    row = [_row("episodes", 1, 0.58)]  # "pygame" matched: no evidence of a Tetris game
    low, high = {("episodes", 1): 0.39}, {("episodes", 1): 0.47}
    assert match.judge(row, low, groups, ENGLISH_WORK, [], index_cyrillic=0.0).level == "none"
    assert match.judge(row, high, groups, ENGLISH_WORK, [], index_cyrillic=0.0).level == "strong"
    # semantic off: at most weak, and the verdict says the question is across languages (the hint)
    off = match.judge(row, None, groups, ENGLISH_WORK, [], index_cyrillic=0.0)
    assert (off.level, off.across) == ("weak", True)
    # an index with Russian text: the same words are evidence, nothing is across
    assert match.judge(row, None, groups, ENGLISH_WORK, [], index_cyrillic=0.08).level == "strong"
    # a known identifier is evidence in any language
    ident = [["=warmup", "warmup"], ["переполнен"]]
    assert match.judge(row, low, ident, {"=warmup": 2, "warmup": 2}, [], index_cyrillic=0.0).level == "strong"


def test_russian_words_the_lexicon_translated_are_evidence_like_english_ones() -> None:
    """"где чинили поиск золотым сечением …": the words' translations (search/translation.py) matched, so the
    lexical side bridged the language gap and the answer is judged as an English question's would be."""
    groups = [["поиск", "search"], ["золот", "gold", "golden"], ["сечен"]]
    df = {"search": 12, "golden": 2, "section": 4}
    row = [_row("episodes", 1, 0.62)]
    low = {("episodes", 1): 0.25}  # meaning alone does not bridge it (USE v3, Russian → English)
    assert match.judge(row, low, groups, df, [], index_cyrillic=0.0).level == "strong"
    off = match.judge(row, None, groups, df, [], index_cyrillic=0.0)  # semantic off: strong too, and the
    assert (off.level, off.across) == ("strong", True)  # verdict still says the question is across languages
    # the same words untranslated: only meaning could answer, and it does not
    bare = [[g[0]] for g in groups]
    assert match.judge(row, low, bare, df, [], index_cyrillic=0.0).level == "none"


def test_unknown_names_are_unseen_latin_words_that_are_no_english_word() -> None:
    terms = {"which": ("which",), "agent": ("agent",), "fixed": ("fix",), "memory": ("memori",),
             "leak": ("leak",), "numpy": ("numpi",), "fft": ("fft",), "module": ("modul",)}
    df = {"agent": 40, "fix": 90, "memori": 3, "numpi": 30, "modul": 12}
    got = match.unknown_names("which agent fixed a memory leak in the numpy.fft module?",
                              lambda words: {w: terms.get(w, (w,)) for w in words}, df)
    assert got == ["fft"]  # "leak" is unseen too, but it is an English word


def test_in_a_russian_question_every_unseen_latin_word_is_a_name_but_a_generic_one() -> None:
    """A Russian speaker writes `Windsurf` in Latin letters because that is what the thing is called: an English
    word or not, the index holding no such word means the work is not here (issue 26: a CodeMie agent's plugins
    for other tools answered "who added Windsurf support" as strong). A generic word (`fix`, `try`) names nothing."""
    terms = {"windsurf": ("windsurf",), "codemie": ("codemi",), "cli": ("cli",), "sqlfluff": ("sqlfluff",),
             "fix": ("fix",), "dbt": ("dbt",)}
    df = {"codemi": 39, "cli": 61, "sqlfluff": 300, "dbt": 5}

    def terms_of(words: list[str]) -> dict[str, tuple[str, ...]]:
        return {w: terms.get(w, (w,)) for w in words}

    assert match.unknown_names("кто добавлял поддержку Windsurf как ещё одного агента в CodeMie CLI?", terms_of,
                               df) == ["windsurf"]
    # the same word in an English question may be a paraphrase: the English word list keeps it out
    assert match.unknown_names("who added Windsurf support to the CodeMie CLI?", terms_of, df) == []
    assert match.unknown_names("какой агент видел, что sqlfluff fix на dbt-модели падает?", terms_of, df,
                               generic=("fix",)) == []


# -- end to end on the shared home -------------------------------------------------------------------
@pytest.fixture(scope="module")
def wh(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return home24.copy(tmp_path_factory.mktemp("home"))


def test_a_query_naming_an_unknown_thing_is_an_empty_answer_with_its_reason(wh: Warehouse) -> None:
    d = q(wh, "кто поднимал kubernetes кластер")
    assert d["found"] is False and d["actors"] == []
    assert all(not d["lanes"][ln]["items"] for ln in ("episodes", "code", "skills"))
    assert d["match"]["level"] == "none" and d["match"]["unknown_terms"] == ["kubernetes"]
    refused = [w for w in d["warnings"] if w["code"] == Code.NO_GOOD_MATCH.value]
    assert len(refused) == 1 and "'kubernetes'" in refused[0]["message"] and refused[0]["lane"] == "all"
    # the rest of the query matches real work (shop-api deploys): leads, never a confident answer
    d = q(wh, "who deployed shop-api to kubernetes")
    assert d["found"] is True and d["match"]["level"] == "weak" and d["match"]["unknown_terms"] == ["kubernetes"]
    assert any(w["code"] == Code.WEAK_MATCH.value and "'kubernetes'" in w["message"] for w in d["warnings"])


def test_a_strong_answer_says_so_and_keeps_its_evidence(wh: Warehouse) -> None:
    d = q(wh, "who restored MySQL root access on 176.99.5.35")
    assert d["found"] is True and d["match"]["level"] == "strong" and d["actors"]
    assert not {w["code"] for w in d["warnings"]} & {Code.WEAK_MATCH.value, Code.NO_GOOD_MATCH.value}


def test_a_weak_answer_keeps_its_items_with_a_warning_and_dispatch_chooses_no_one(wh: Warehouse) -> None:
    task = "deploy the ledger service via helm"
    d = q(wh, task)
    assert d["found"] is True and d["match"]["level"] == "weak"
    assert Code.WEAK_MATCH.value in {w["code"] for w in d["warnings"]}
    plan = wh.dispatch({"schema": "knowledge.dispatch/v1", "task": {"text": task}})
    assert plan["target"] is None and [e["code"] for e in plan["errors"]] == [Code.NOT_FOUND.value]
    assert Code.WEAK_MATCH.value in {w["code"] for w in plan["warnings"]}


def test_the_search_app_puts_a_banner_over_a_weak_answer_only() -> None:
    from warehouse import ui

    weak = {"match": {"level": "weak"},
            "warnings": [{"code": Code.WEAK_MATCH.value, "lane": "all", "message": "no indexed work mentions 'k8s'"}]}
    banner = ui.match_html(weak, "ru")
    assert 'id="akw-weak"' in banner and "Слабое совпадение" in banner and "k8s" in banner
    assert ui.match_html({"match": {"level": "strong"}, "warnings": []}, "en") == ""
    assert ui.match_html({"warnings": []}, "en") == ""  # a response of an older generation: no match field


def test_the_index_cyrillic_share_is_read_from_the_build_and_measured_for_an_older_generation() -> None:
    import duckdb

    con = duckdb.connect()
    con.execute("CREATE TABLE fts_vocab AS SELECT * FROM (VALUES ('привет', 1), ('hello', 3)) t(term, df)")
    con.execute("CREATE TABLE akw_meta AS SELECT 'ak-x' AS index_rev")  # built before akw_meta kept the share
    assert match.read_index_cyrillic(con) == 0.25
    con.execute("CREATE OR REPLACE TABLE akw_meta AS SELECT 'ak-x' AS index_rev, 0.5::DOUBLE AS cyrillic_share")
    assert match.read_index_cyrillic(con) == 0.5  # what the build measured, no scan of the vocabulary


def test_a_build_keeps_its_cyrillic_share_in_akw_meta(wh: Warehouse) -> None:
    share = wh.sql("SELECT cyrillic_share FROM akw_meta")["rows"][0][0]
    assert share == wh.status()["semantic"]["index_cyrillic_share"] and 0.02 <= share < 1


def test_a_common_word_rare_in_a_small_corpus_neither_outweighs_nor_alone_anchors_the_query() -> None:
    """"…the SSO metrics sync conclude": `conclud` in 2 of 426 documents weighed more than `sso` and was the
    query's only anchor, so the session that did the work (every other word) was no answer (issue 26)."""
    from warehouse.search.common_words import common_query_words
    from warehouse.search.fusion import anchor_mask, cap_common

    assert common_query_words("what did the SSO metrics sync conclude?") == ["what", "did", "the", "sync", "conclude"]
    groups = [["conclud"], ["metric"], ["sso"], ["sync"]]
    df = {"conclud": 2, "metric": 92, "sso": 66, "sync": 90}
    idf = [5.4, 1.5, 1.9, 1.55]
    masks = [1, 2, 4, 8]
    assert anchor_mask(groups, masks, idf, df) == 1  # before: only the plain word anchors
    capped = cap_common(groups, idf, df, frozenset({"conclud", "sync"}))
    assert capped == [1.9, 1.5, 1.9, 1.55]
    assert anchor_mask(groups, masks, capped, df) == 1 | 2 | 4 | 8
    assert cap_common(groups, idf, df, frozenset({"conclud", "metric", "sso", "sync"})) == idf  # nothing specific
