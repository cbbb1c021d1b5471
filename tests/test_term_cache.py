"""The per-generation query-term memo answers exactly like the index's SQL tokenizer and vocabulary."""

from __future__ import annotations

import sys
import unicodedata

import duckdb
import pytest

from warehouse.core import literals
from warehouse.core.db import connect
from warehouse.core.tokenizer import install_tokenizer
from warehouse.search import lexical
from warehouse.search.term_cache import TermCache, chunks


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    c = connect(":memory:")
    install_tokenizer(c, temp=True)
    c.execute("CREATE TEMP TABLE _query (q VARCHAR)")
    c.execute("PREPARE akw_chunk_tokens AS SELECT q, akw_chunk_terms(q) FROM _query")
    c.execute("CREATE TABLE fts_vocab (term VARCHAR, term_id INTEGER, df INTEGER)")
    c.execute("INSERT INTO fts_vocab SELECT t, row_number() OVER (ORDER BY t) * 7 % 101, length(t) FROM "
              "unnest(akw_terms('Migrated iya.ru to the new host 176.99.5.35; certbot renew, мигрировал сайт')) "
              "AS u(t) GROUP BY t")
    return c


def test_chunks_match_the_sql_macro_on_every_separator_like_code_point(con) -> None:
    """Every whitespace, separator, control and format code point splits (or not) exactly as akw_chunks."""
    cps = [cp for cp in range(1, sys.maxunicode + 1)
           if chr(cp).isspace() or unicodedata.category(chr(cp)) in ("Zs", "Zl", "Zp", "Cc", "Cf")]
    texts = [f"a{chr(cp)}b{chr(cp)}{chr(cp)}c" for cp in cps] + ["", " ", "  lead and trail  "]
    got = con.execute(f"SELECT list_transform({literals.texts(texts)}, x -> akw_chunks(x))").fetchone()[0]
    for text, sql_chunks in zip(texts, got, strict=True):
        assert chunks(text) == sql_chunks, hex(ord(text[1])) if len(text) > 1 else text


QUERIES = ["кто мигрировал iya.ru?", "Who migrated iya.ru to 176.99.5.35", "certbot  renew\tcertbot\u00a0renew",
           "getHTTPServer snake_case /etc/nginx/nginx.conf.", "«ёлка» — ЁЖ… 'quoted' \"x\"", "a", "   ",
           "the and of", "x" * 70 + " " + "y" * 3, "IP:176.99.5.35:8080 https://iya.ru/path?q=1"]


def test_tokens_equal_the_sql_tokenizer_cold_and_warm(con) -> None:
    memo = TermCache()
    for _ in range(2):  # the second round answers from the memo
        for q in QUERIES:
            assert memo.tokens(con, q) == lexical.tokenize(con, q), q
    assert memo.tokens(con, "certbot") == lexical.tokenize(con, "certbot")


def test_lookup_equals_the_vocabulary_query(con) -> None:
    memo = TermCache()
    for _ in range(2):
        for q in QUERIES:
            terms = [*lexical.tokenize(con, q), "never-indexed"]
            assert memo.lookup(con, terms) == lexical.lookup(con, terms), q


def test_memo_is_bounded(con) -> None:
    memo = TermCache()
    long_chunk = "https://example.org/" + "a" * 100
    assert memo.tokens(con, f"certbot {long_chunk}") == lexical.tokenize(con, f"certbot {long_chunk}")
    assert "certbot" in memo._chunk_terms and long_chunk not in memo._chunk_terms


def test_loanwords_are_memoized_like_the_vocabulary(con) -> None:
    """The memo answers as translation.loanword_terms, and a stem it has seen is not looked up again."""
    from warehouse.search import translation

    memo = TermCache()
    want = translation.loanword_terms(con, ["сертификат", "тетрис"])
    assert memo.loanwords(con, ["сертификат", "тетрис"]) == want  # (`certbot`: no certificate in this vocabulary)
    con.execute("CREATE TEMP TABLE fts_vocab AS SELECT 'certificat' AS term")  # shadows the vocabulary for this session
    try:
        assert translation.loanword_terms(con, ["сертификат"]) == {"сертификат": ["certificat"]}
        assert memo.loanwords(con, ["сертификат", "тетрис"]) == want  # seen: answered from the memo
    finally:
        con.execute("DROP TABLE temp.fts_vocab")
