"""Passages: ~400-character windows of a document's text, the semantic lane's reach into the work.

A sentence encoder averages over the words it is given, so one vector of a whole episode (or of its
first 200 characters) cannot stand for a detail deep in the work: a failed step, an error message,
what a tool printed. Issue 24 measured it on real transcripts: embedding passages of an episode's
human messages, assistant text and tool results, and scoring an episode by its best passage, raised
Russian recall@3 from 0.53 to 0.82 against head-only units. Window size 200-800 made no difference.

Both sides use this module: the build cuts the passages it embeds (indexing/embeddings.py), and a
search that matched a passage shows it as the item's snippet (search/items.py), so a person sees
*why* the item matched. Positions are offsets into `clean(text)` on both sides.
"""

from __future__ import annotations

import re

PASSAGE_CHARS = 400  # a window; cut back to a space in its last 40% so no word is split
PER_DOC = 4  # a document's first three windows and its last (a tool's error is often at the end)
MIN_LETTER_SHARE = 0.3  # a window of mostly digits, punctuation and hashes carries no meaning to embed
# A short message ("Listing the directory.") is one or two words to the encoder: it lands close to any
# question that shares them (0.53 for "who migrated the openldap directory"), a near miss by construction.
MIN_CHARS = 80

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean(text: str) -> str:
    """Drop control characters and collapse whitespace runs to one space."""
    return " ".join(_CONTROL.sub("", text).split())


def windows(text: str, size: int = PASSAGE_CHARS) -> list[tuple[int, str]]:
    """(offset, window) of `text` (already clean) in order, cut at spaces; the last may be shorter."""
    out: list[tuple[int, str]] = []
    start, n = 0, len(text)
    while start < n:
        end = min(start + size, n)
        if end < n:
            space = text.rfind(" ", start + int(size * 0.6), end)
            if space > start:
                end = space
        piece = text[start:end].strip()
        if piece:
            out.append((start, piece))
        start = end + 1 if end < n and text[end] == " " else end
    return out


def meaningful(piece: str) -> bool:
    """Long enough and enough letters to mean something (mildly: code with words in it stays)."""
    return len(piece) >= MIN_CHARS and sum(c.isalpha() for c in piece) >= MIN_LETTER_SHARE * len(piece)


def passages(text: str | None, per_doc: int = PER_DOC, size: int = PASSAGE_CHARS) -> list[tuple[int, str]]:
    """The windows of one document worth embedding: its first `per_doc - 1` meaningful ones and its
    last, as (offset into clean(text), window)."""
    if not text:
        return []
    kept = [w for w in windows(clean(text), size) if meaningful(w[1])]
    if len(kept) <= per_doc:
        return kept
    return [*kept[: per_doc - 1], kept[-1]]
