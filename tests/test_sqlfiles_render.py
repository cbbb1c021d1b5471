"""`sqlfiles.render`: the one way a `queries/` template's `{name}` placeholders are filled."""

from __future__ import annotations

import re

import pytest

from warehouse.core.sqlfiles import placeholders, query_files, query_sql, query_template, render


def test_one_pass_never_rescans_a_fragment() -> None:
    sql = render("lexical_filter", lane="{where_sql}", where_sql="x = '{lane}'")
    assert "d.lane = {where_sql} AND (x = '{lane}')" in sql


def test_fragment_order_does_not_matter() -> None:
    a = render("access_bits", name="t", max="7", allow="t")
    b = render("access_bits", allow="t", max="7", name="t")
    assert a == b and "{" not in a


def test_missing_placeholder_raises_naming_file_and_placeholder() -> None:
    with pytest.raises(ValueError, match=r"search/lexical_filter\.sql.*without a fragment: \{where_sql\}"):
        render("lexical_filter", lane="'x'")


def test_unknown_fragment_raises_naming_file_and_fragment() -> None:
    with pytest.raises(ValueError, match=r"search/query_tokens\.sql.*without a placeholder: \{nope\}"):
        render("query_tokens", query="'x'", nope="1")


def test_empty_fragment_is_still_given() -> None:
    sql = render("vector_lane", lane_no="0", k="5", filter="")
    assert "{filter}" not in sql


def test_fragment_must_be_text() -> None:
    with pytest.raises(TypeError, match="k"):
        render("vector_lane", lane_no="0", k=5, filter="")  # type: ignore[arg-type]


def test_literal_braces_are_left_alone() -> None:
    text = "SELECT {'a': 1} AS s, regexp_matches(x, 'a{2,}'), '{A1}', {q}"
    assert render("query_tokens", text, q="1") == "SELECT {'a': 1} AS s, regexp_matches(x, 'a{2,}'), '{A1}', 1"


def test_regex_code_points_in_a_file_are_not_placeholders() -> None:
    assert "{00C0}" in query_sql("word_terms")
    assert placeholders("word_terms") == {"doc_ids"}
    assert r"\x{00C0}-\x{024F}" in render("word_terms", doc_ids="1")


def test_comment_lines_are_dropped_and_not_filled() -> None:
    assert "{filter}" in query_sql("lexical_filter")  # its comment names the template it fills
    assert placeholders("lexical_filter") == {"lane", "where_sql"}
    sql = render("lexical_filter", lane="'x'", where_sql="true")
    assert not any(ln.lstrip().startswith("--") for ln in sql.splitlines()) and "{filter}" not in sql


def test_every_query_files_placeholders_are_listed() -> None:
    for name in query_files():
        found = placeholders(name)
        assert found == set(re.findall(r"\{([a-z_][a-z0-9_]*)\}", query_template(name))), name
        sql = render(name, **{p: "" for p in found})
        assert not any(f"{{{p}}}" in sql for p in found), name


def test_a_variant_template_is_checked_against_its_own_placeholders() -> None:
    scan = query_template("lexical_postings").replace("term_id = {term_id}", "term_id IN ({term_id})")
    assert render("lexical_postings", scan, lane="'x'", term_id="1,2").endswith("term_id IN (1,2)")
    with pytest.raises(ValueError, match="lexical_postings"):
        render("lexical_postings", scan, lane="'x'")
