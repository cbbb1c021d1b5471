"""Russian words the index does not know reach English work through the shipped lexicon (search/translation.py).

The lexicon's keys must be what the index's tokenizer makes of their words (else no query term ever finds
them); expansion adds translations only where a Russian word is unknown and the question names nothing
unknown; and a Russian question about work logged only in English is answered with the semantic side off.
Real generated data (24 sessions, seed 7) for the end-to-end case; expectations from the manifest.
"""

from __future__ import annotations

from typing import Any

import pytest
from homes import BuiltHome, q

from warehouse.core import db
from warehouse.core.tokenizer import CYRILLIC, install_tokenizer
from warehouse.search import lexical, synonyms, translation


@pytest.fixture(scope="module")
def con() -> Any:
    c = db.connect()
    install_tokenizer(c)
    return c


def test_the_lexicon_keys_are_what_the_tokenizer_makes_of_their_words(con: Any) -> None:
    rows = [line.split("\t") for line in translation.LEXICON.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")]
    assert len(rows) > 3000 and all(len(r) == 3 for r in rows)
    keys = [r[0] for r in rows]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    made = lexical.tokenize_many(con, [r[2] for r in rows])
    assert all(key in terms for key, terms in zip(keys, made, strict=True))
    table = translation.lexicon()
    assert all(1 <= len(en) <= translation.PER_TERM for en in table.values())
    assert all(not CYRILLIC.search(t) for en in table.values() for t in en)  # English terms only
    assert {"gold", "golden"} & set(table["золот"]) and "search" in table["поиск"]


def test_only_unknown_russian_words_get_translations(con: Any) -> None:
    def groups(query: str, known: set[str]) -> dict[str, list[str]]:
        lookup = lambda terms: [(t, i, 1) for i, t in enumerate(terms) if t in known]  # noqa: E731
        return {g[0]: g for g in synonyms.expand(con, query, lookup=lookup).groups}

    g = groups("поиск золотым сечением", known=set())
    assert "search" in g["поиск"] and {"gold", "golden"} & set(g["золот"])
    # a Russian word the index knows keeps its own evidence: no English terms are added to it
    assert groups("поиск золотым сечением", known={"поиск"})["поиск"] == ["поиск"]
    # a question naming a thing the index never saw is about that thing: its frame words are not translated
    g = groups("кто добавлял поддержку windsurf", known=set())
    assert g["поддержк"] == ["поддержк"] and g["windsurf"] == ["windsurf"]
    # a known name does not stop it
    assert "support" in groups("кто добавлял поддержку windsurf", known={"windsurf"})["поддержк"]


def test_a_russian_question_finds_english_only_work_with_semantic_off(home24: BuiltHome, tmp_path: Any) -> None:
    """bom_crlf_cleanup is logged only in English; the question shares no word with it but `BOM`'s meaning."""
    wh = home24.copy(tmp_path / "akw")
    assert not wh.settings.semantic.enabled
    want = {t["session_id"] for t in home24.manifest["tasks"] if t["template"] == "bom_crlf_cleanup"}
    assert want and {t["language"] for t in home24.manifest["tasks"] if t["template"] == "bom_crlf_cleanup"} == {"en"}
    d = q(wh, "кто убирал невидимую метку в начале файлов и лишние символы в конце строк?", limit=5)
    top = [i["session_id"] for i in d["lanes"]["episodes"]["items"][:3]]
    assert d["found"] and want & set(top), d["match"]


def test_a_loanword_is_spelled_in_latin_letters_every_plausible_way() -> None:
    assert "transact" in translation.spellings("транзакц")  # з → s, к → c, ц → t
    assert "prefix" in translation.spellings("префикс")  # кс → x
    assert "endpoint" in translation.spellings("эндпоинт")
    assert len(translation.spellings("щщщщщщщщщщщщ")) <= 64  # bounded however ambiguous the stem


def test_loanwords_find_the_index_terms_they_spell_and_nothing_else(con: Any) -> None:
    con.execute("CREATE OR REPLACE TEMP TABLE fts_vocab AS SELECT unnest(['chat', 'model', 'modeladmincheck', "
                "'replic', 'replica', 'tetra', 'transact']) AS term ORDER BY term")
    got = translation.loanword_terms(con, ["репликац", "транзакц", "модел", "тетрис", "чат"])
    # a stem spells a term nearly whole (`replic` of `репликац`), never a longer compound (`modeladmincheck`);
    # a topic the index lacks finds nothing (`tetra` is not `tetris`), and a short stem is not tried (`чат`)
    assert got == {"репликац": ["replic", "replica"], "транзакц": ["transact"], "модел": ["model"]}
    g = {g[0]: g for g in synonyms.expand(con, "где чинили транзакции", lookup=lambda terms: [
        (t, i, 1) for i, t in enumerate(terms) if t in {"transact"}]).groups}
    assert g["транзакц"] == ["транзакц", "transact"]
    con.execute("DROP TABLE fts_vocab")
    assert translation.loanword_terms(con, ["репликац"]) == {}  # the tokenizer alone: no vocabulary, no loanwords
