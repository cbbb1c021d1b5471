"""Russian words → English index terms: a shipped lexicon that lets the lexical lanes cross the language gap.

A Russian question about English work shares no words with it, so its lexical coverage was ~0 and only the
semantic lane (when on) could answer: on the real transcripts 33 of 55 Russian questions came back empty with
semantic off, 7 with it on. The hand-kept table `synonyms.EQUIV` covers a few hundred work words; this lexicon
covers the Russian word list of pyspellchecker (~19k forms of 4+ letters, ~5.5k index terms once stemmed):
each form is paired with the most similar of the 10,000 common English words (`data/common_en.txt`) by the
cosine of their multilingual USE v3 vectors (`core/embed.py`), kept when at least `MIN_SIMILARITY`, at most
`PER_TERM` per term. It is computed once and shipped as `data/ru_en.tsv` (`python -m
warehouse.search.translation` writes it again), so no search process loads a model or a dictionary for it,
and it works with semantic off.

Loanwords. The word list is conversational: `репликация`, `транзакция`, `сериализация`, `эндпоинт` are not on
it, and they are what Russian questions about code are made of. They are English words spelled in Cyrillic, so
`loanword_terms` spells a Russian stem in Latin letters every plausible way (`ц` → c/t/ts, `к` → k/c, `и` → i/y,
`кс` → x …) and takes the index terms that one spelling begins with, or that begin with it, nearly whole:
`репликац` → `replic`, `транзакц` → `transact`, `эндпоинт` → `endpoint`; `тетрис` finds nothing in an index
without Tetris, and the topic stays absent.

`synonyms.expand` adds a term's translations only to a Cyrillic word the index does not know (a Russian index
keeps its own words) and only when the question names nothing unknown in Latin letters (`Windsurf`): a
question about an absent named thing stays unanswered rather than answered by its translated frame words.
"""

from __future__ import annotations

import itertools
import re
from functools import cache
from pathlib import Path

import duckdb

from warehouse.core import literals
from warehouse.core.sqlfiles import render

LEXICON = Path(__file__).with_name("data") / "ru_en.tsv"
MIN_SIMILARITY = 0.75  # below it a nearest English word is as often wrong as right (ноль → "lest" is 0.83)
PER_TERM = 2  # English terms per Russian term: a word's two senses or two spellings (key → key, keys)
MIN_LETTERS = 4  # shorter Russian words are mostly function words the tokenizer drops anyway
_RU_WORD = re.compile(f"[а-яё]{{{MIN_LETTERS},}}")
# Latin spellings of Cyrillic letters in English loanwords, the commonest first
_LATIN_OF = {"а": ("a",), "б": ("b",), "в": ("v", "w"), "г": ("g", "h"), "д": ("d",), "е": ("e",), "ё": ("e",),
             "ж": ("g", "j", "zh"), "з": ("z", "s"), "и": ("i", "y"), "й": ("y", "i"), "к": ("k", "c"), "л": ("l",),
             "м": ("m",), "н": ("n",), "о": ("o",), "п": ("p",), "р": ("r",), "с": ("s", "c"), "т": ("t",),
             "у": ("u", "oo"), "ф": ("f", "ph"), "х": ("h", "ch"), "ц": ("c", "t", "ts"), "ч": ("ch",), "ш": ("sh",),
             "щ": ("sch",), "ъ": ("",), "ы": ("y", "i"), "ь": ("",), "э": ("e", "a"), "ю": ("u", "yu"),
             "я": ("ya", "ia", "a")}
LOANWORD_MIN_STEM = 4  # shorter stems (`чат`, `хук`) spell too many words
LOANWORD_MIN_TERM = 5  # an index term this long at least: `model`, `patch`, `replic`
LOANWORD_SLACK = 3  # letters a spelling and its term may differ in length by (endings, `-ation` vs `-ац`)
_SPELLINGS = 64  # at most this many spellings per stem


@cache
def lexicon() -> dict[str, tuple[str, ...]]:
    """Russian index term -> its English index terms (tab-separated file: term, English terms, an example word)."""
    out: dict[str, tuple[str, ...]] = {}
    for line in LEXICON.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            term, english, _example = line.split("\t")
            out[term] = tuple(english.split())
    return out


def spellings(stem: str) -> set[str]:
    """Latin spellings of a Russian stem, as an English loanword would be written (`кс` is `x`)."""
    parts = [_LATIN_OF.get(c, (c,)) for c in stem.replace("кс", "x")]
    return {"".join(p) for p in itertools.islice(itertools.product(*parts), _SPELLINGS)}


def loanword_terms(con: duckdb.DuckDBPyConnection, stems: list[str]) -> dict[str, list[str]]:
    """Stem -> the index terms it spells (sorted): a term at least LOANWORD_MIN_TERM long that one spelling
    begins with, or that begins with one, each within LOANWORD_SLACK letters of the other's length. One
    statement for all stems; a database without a vocabulary (the tokenizer alone) has none."""
    spelled = {s: spellings(s) for s in stems if len(s) >= LOANWORD_MIN_STEM}
    heads = sorted({sp[:4] for sps in spelled.values() for sp in sps if len(sp) >= 4})
    if not heads:
        return {}
    ranges = [render("vocab_range", lo=literals.text(h), hi=literals.text(h[:-1] + chr(ord(h[-1]) + 1)))
              for h in heads]
    try:
        vocab = sorted({t for (t,) in con.execute("\nUNION ALL\n".join(ranges)).fetchall()})
    except duckdb.CatalogException:
        return {}
    by_head: dict[str, list[str]] = {}  # a matching term shares its first 4 letters with the spelling
    for t in vocab:
        by_head.setdefault(t[:4], []).append(t)
    out: dict[str, list[str]] = {}
    for stem, sps in spelled.items():
        near = sorted({t for h in {sp[:4] for sp in sps} for t in by_head.get(h, ())})
        found = [t for t in near if len(t) >= LOANWORD_MIN_TERM and any(
            (sp.startswith(t) and len(t) >= len(sp) - LOANWORD_SLACK)
            or (t.startswith(sp) and len(sp) >= LOANWORD_MIN_TERM and len(t) <= len(sp) + LOANWORD_SLACK)
            for sp in sps)]
        if found:
            out[stem] = found
    return out


def write_lexicon(path: Path = LEXICON) -> int:
    """Compute the lexicon again (needs the [semantic] extra for the model); returns the number of terms.

    Deterministic for one model and one word list: the words are taken most frequent first (ties by
    spelling), similarities are exact float32 cosines, and ties of English terms go by spelling."""
    import numpy as np
    from spellchecker import SpellChecker

    from warehouse.core import db, embed
    from warehouse.core.tokenizer import install_tokenizer
    from warehouse.search import lexical
    from warehouse.search.common_words import common_en_ranked

    freq = SpellChecker(language="ru").word_frequency.dictionary
    russian = [w for w, _ in sorted(freq.items(), key=lambda kv: (-kv[1], kv[0])) if _RU_WORD.fullmatch(w)]
    english = common_en_ranked()
    con = db.connect()
    install_tokenizer(con)
    ru_terms, en_terms = lexical.tokenize_many(con, russian), lexical.tokenize_many(con, english)
    con.close()

    def unit(texts: list[str]) -> np.ndarray:
        vecs = np.asarray(embed.embed_each(texts), dtype=np.float32)
        return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)

    ru_vecs, en_vecs = unit(russian), unit(english)
    best: dict[str, dict[str, float]] = {}
    example: dict[str, str] = {}
    for start in range(0, len(russian), 2000):
        sims = ru_vecs[start:start + 2000] @ en_vecs.T
        for row, sim in enumerate(sims):
            word = russian[start + row]
            for k in np.argsort(-sim, kind="stable")[:PER_TERM]:
                if sim[k] < MIN_SIMILARITY:
                    break
                for term in ru_terms[start + row]:
                    example.setdefault(term, word)
                    for en in en_terms[k]:
                        have = best.setdefault(term, {})
                        have[en] = max(have.get(en, 0.0), float(sim[k]))
    lines = [f"{term}\t{' '.join(sorted(ens, key=lambda e: (-ens[e], e))[:PER_TERM])}\t{example[term]}"
             for term, ens in sorted(best.items())]
    head = (f"# Russian index term -> English index terms, example word. {len(lines):,} terms from pyspellchecker's "
            f"Russian word list ({len(russian):,} words of {MIN_LETTERS}+ letters)\n# x data/common_en.txt by the "
            f"cosine of USE v3 vectors >= {MIN_SIMILARITY}, at most {PER_TERM} per term (ADR 0003 \"Translated "
            "words\"). Regenerate: python -m warehouse.search.translation\n")
    path.write_text(head + "\n".join(lines) + "\n", encoding="utf-8")
    lexicon.cache_clear()
    return len(lines)


if __name__ == "__main__":
    print(write_lexicon())
