"""Common English words: a query's plain words, which a small corpus can make look rare (issue 26).

In an index of a few hundred documents, "conclude" (in 2 of them) weighs by idf as much as a name
("grafana", "sso") and becomes the query's only anchor (fusion.anchor_mask): "what did the review of the SSO
metrics sync conclude" then had no answer, though every other word matched the session that did it. A word
on this list may weigh at most as the heaviest *specific* (non-common) word of the same query; a query of
common words only is weighed as before. The list (`data/common_en.txt`) is the 10,000 most frequent English
words of 3+ letters of pyspellchecker's word-frequency data, cut once and shipped, so no search process
loads the 8 MB dictionary: `python -m warehouse.search.common_words` writes it again.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

LIST = Path(__file__).with_name("data") / "common_en.txt"
SIZE = 10_000
_WORD = re.compile(r"[a-z]{3,}")


@cache
def common_en_ranked() -> list[str]:
    """The list's words, most frequent first."""
    lines = LIST.read_text(encoding="utf-8").splitlines()
    return [w for w in lines if w and not w.startswith("#")]


@cache
def common_en() -> frozenset[str]:
    return frozenset(common_en_ranked())


def common_query_words(query: str) -> list[str]:
    """The query's words (lower-case, Latin, 3+ letters) that are common English words, in query order."""
    words = common_en()
    return [w for w in dict.fromkeys(m.group(0) for m in _WORD.finditer(query.lower())) if w in words]


def write_list(path: Path = LIST, size: int = SIZE) -> None:
    """Cut the list from pyspellchecker's English frequencies (most frequent first, ties by spelling)."""
    from spellchecker import SpellChecker

    freq = SpellChecker(language="en").word_frequency.dictionary
    ranked = [w for w, _ in sorted(freq.items(), key=lambda kv: (-kv[1], kv[0])) if _WORD.fullmatch(w)][:size]
    head = (f"# The {size:,} most frequent English words of 3+ letters, from pyspellchecker's English "
            "word-frequency\n# list (MIT; ADR 0003 \"Common words\"), one per line, most frequent first. "
            "Regenerate: see common_words.py.\n")
    path.write_text(head + "\n".join(ranked) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_list()
