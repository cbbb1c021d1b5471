"""Passages (issue 24): the windows the semantic lane embeds, and their offsets into the clean text."""

from __future__ import annotations

import pytest

from warehouse.core.passages import MIN_CHARS, PASSAGE_CHARS, PER_DOC, clean, passages, windows

TEXT = ("Traceback (most recent call last): the migration autodetector raised KeyError 'to' while it "
        "deconstructed a ForeignKey whose target was hard-coded. " * 12)


def test_windows_cut_at_spaces_and_their_offsets_point_into_the_clean_text() -> None:
    text = clean(TEXT)
    got = windows(text)
    assert len(got) > 3 and all(len(w) <= PASSAGE_CHARS for _, w in got)
    for pos, w in got:
        assert text[pos:pos + len(w)] == w
        assert pos == 0 or text[pos - 1] == " "  # no word is split
    assert " ".join(w for _, w in got) == text  # nothing is lost between windows


def test_a_document_gives_its_first_windows_and_its_last() -> None:
    got = passages(TEXT)
    every = windows(clean(TEXT))
    assert len(got) == PER_DOC and got[:-1] == every[: PER_DOC - 1] and got[-1] == every[-1]


@pytest.mark.parametrize("text", ["Listing the directory.", "0x1f 0x2a 0x00 | 12 34 56 78 90 ab cd ef == ++ -- ## " * 4,
                                  "", None])
def test_short_or_letterless_text_gives_no_passage(text: str | None) -> None:
    assert passages(text) == []
    assert len("Listing the directory.") < MIN_CHARS


def test_control_characters_and_whitespace_runs_do_not_shift_offsets() -> None:
    raw = "first\x00 line\n\n\t" + TEXT
    text = clean(raw)
    for pos, w in passages(raw):
        assert text[pos:pos + len(w)] == w
