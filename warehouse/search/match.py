"""How strong the answer of one search is: `strong`, `weak` or `none` (issue 24, docs/search.md "Match").

Fusion ranks whatever matches; this judges the answer as a whole by its best evidence, so an
absent topic is not answered "confidently wrong". The evidence is the best lexical coverage of
the returned items (the idf-weighted share of the query's words an item matched) and, with the
vector side answering, their best similarity. Two more things the index knows about the query:

- **Names it never saw.** A Latin-script word of the query that no indexed document contains and
  that is no English word (an English dictionary, `pyspellchecker`'s word list) names a thing —
  `fft`, `websocket`, `jwt`, `kubernetes` — and the index holds no work on it: the nearest work
  (numpy, the Vue todo app, `requests`) is not an answer, however similar. A typo is such a word
  too, and the reason then names it. An item that matches most of the rest of the query lexically
  (`NAME_COVERAGE`: "who deployed shop-api to kubernetes" → the shop-api deploys) is a lead: `weak`.
- **Across languages.** A Russian question about English work (the index knows few of its own
  Cyrillic words) matches by meaning: the words it shares with the work (a library name, a stray
  Russian word in a log) are no evidence of the topic, so with the vector side answering its
  similarity decides — unless the query names an identifier the index holds (`WarmUp`, `msg.enc`).

`none` is an empty answer (found=false, no items, no actors, KC-5) with the reason and hints;
`weak` keeps the items with a KNOWLEDGE_WEAK_MATCH warning. The thresholds were calibrated on the
real transcripts' `split: calibrate` half (golden/transcripts.yaml) and reported on the holdout
half (docs/search.md "Match"); with the semantic side off the weak floor is fusion's own
MIN_BEST_COVERAGE, so turning this on dropped no answer there.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Literal, NamedTuple

import duckdb

from warehouse.core.tokenizer import CYRILLIC, CYRILLIC_INDEX_SHARE, cyrillic_share
from warehouse.search.fusion import MIN_BEST_COVERAGE, script_of
from warehouse.search.vector import VEC_MIN

Level = Literal["strong", "weak", "none"]

STRONG_SIMILARITY = 0.50  # best similarity of a strong answer by meaning (flat 0.45-0.55 on the calibrate half)
STRONG_SIMILARITY_ACROSS = 0.43  # ... of a question in another script than the work it asks about
MIN_SIMILARITY = VEC_MIN  # below it, meaning alone is no answer (flat 0.38-0.42 on the calibrate half)
STRONG_COVERAGE = 0.5  # best lexical coverage of a strong answer
MIN_COVERAGE_SEMANTIC = 0.35  # with the vector side answering, a thinner lexical match it does not back is none
ACROSS_KNOWN_SHARE = 0.2  # a Cyrillic question whose own words the index knows less than this share of
# (over an index whose postings are less than core/tokenizer.CYRILLIC_INDEX_SHARE Cyrillic: the language gap)
NAME_COVERAGE = 0.6  # a query naming something unknown: an item matching this much of it is a lead (weak)

_WORD = re.compile(r"[A-Za-z][A-Za-z']*[A-Za-z]")
_TOKEN = re.compile(r"\w+")


class Match(NamedTuple):
    level: Level
    reason: str  # a message key of search/messages.py ("" for strong)
    similarity: float | None  # the best item's similarity (None: the vector side did not answer)
    coverage: float  # the best item's lexical coverage
    names: tuple[str, ...] = ()  # the query's words that name something the index never saw
    across: bool = False  # a question in another language than most of the work: only meaning bridges it


def judge(items: Sequence[tuple], similarity: Mapping[tuple[str, int], float] | None,
          groups: Sequence[Sequence[str]], df: Mapping[str, int], names: Sequence[str],
          index_cyrillic: float = 1.0) -> Match:
    """The answer's strength from fusion's `items` (slots.sql rows: lane, doc_id, …, coverage at 5),
    `similarity` ((lane, doc_id) -> best similarity; None when the vector side did not answer), the
    query's word `groups` with their document frequencies `df`, its unknown `names` and the share of the
    index's postings that are Cyrillic (`read_index_cyrillic`)."""
    gap = index_cyrillic < CYRILLIC_INDEX_SHARE and asks_across(groups, df)
    # a known identifier is evidence in any language; so are words the lexicon translated (synonyms.expand)
    across = gap and not names_known_identifier(groups, df) and asks_across(groups, df, translated=True)
    if not items:
        return Match("none", "match.nothing", None if similarity is None else 0.0, 0.0, tuple(names), gap)
    cov = max((float(r[5]) for r in items if r[5] is not None), default=0.0)
    sims = [similarity[(r[0], int(r[1]))] for r in items if (r[0], int(r[1])) in similarity] \
        if similarity is not None else []
    sim = max(sims, default=0.0) if similarity is not None else None
    if names:  # what it names is not here: at best the items match the rest of the query (leads)
        level: Level = "weak" if cov >= NAME_COVERAGE else "none"
        return Match(level, "match.unknown_names", sim, cov, tuple(names), gap)
    if sim is None:  # lexical evidence alone: fusion already held the best item to MIN_BEST_COVERAGE
        level = "strong" if cov >= STRONG_COVERAGE else "weak" if cov >= MIN_BEST_COVERAGE else "none"
        if across and level == "strong":  # the shared words may be all the question and the work have in common
            return Match("weak", "match.across_words", sim, cov, across=True)
        return Match(level, "" if level == "strong" else "match.thin_words", sim, cov, across=gap)
    if across:
        if sim >= STRONG_SIMILARITY_ACROSS or (cov >= STRONG_COVERAGE and sim >= MIN_SIMILARITY):
            return Match("strong", "", sim, cov, across=True)
        return Match("weak" if sim >= MIN_SIMILARITY else "none", "match.across_scripts", sim, cov, across=True)
    if sim >= STRONG_SIMILARITY or cov >= STRONG_COVERAGE:
        return Match("strong", "", sim, cov)
    if sim >= MIN_SIMILARITY or cov >= MIN_COVERAGE_SEMANTIC:
        return Match("weak", "match.thin", sim, cov)
    return Match("none", "match.thin", sim, cov)


def read_index_cyrillic(con: duckdb.DuckDBPyConnection) -> float:
    """The share of the generation's term postings written in Cyrillic, as its build measured it
    (core/tokenizer.cyrillic_share, kept in akw_meta): once per generation, no scan of the vocabulary;
    a generation built before akw_meta kept it (same index_rev, so a reindex keeps it) is measured here."""
    try:
        return float(con.execute("SELECT cyrillic_share FROM akw_meta").fetchone()[0])
    except duckdb.BinderException:
        return cyrillic_share(con)


def asks_across(groups: Sequence[Sequence[str]], df: Mapping[str, int], translated: bool = False) -> bool:
    """A question in Russian that the index's words do not answer: of the query's own Cyrillic words
    (identifiers aside) the index knows under ACROSS_KNOWN_SHARE (`judge` asks this only of an index with
    almost no Cyrillic text). `translated`: a word counts as known when one of its equivalents or
    translations is (the lexical side then bridges the gap); otherwise only the word itself counts."""
    heads = [g for g in groups if not g[0].startswith("=") and CYRILLIC.search(g[0])]
    known = sum(any(t in df for t in g) if translated else g[0] in df for g in heads)
    return len(heads) >= 1 and known < ACROSS_KNOWN_SHARE * len(heads)


def names_known_identifier(groups: Sequence[Sequence[str]], df: Mapping[str, int]) -> bool:
    """The query names an identifier the index holds (`WarmUp`, `msg.enc`): what matched it lexically is
    evidence in any language."""
    return any(g[0].startswith("=") and any(t in df for t in g) for g in groups)


def unknown_names(query: str, terms_of: Callable[[list[str]], Mapping[str, Iterable[str]]],
                  df: Mapping[str, int], generic: Collection[str] = ()) -> list[str]:
    """The query's Latin-script words that no indexed document contains and that are no English word,
    in query order. `terms_of`: words -> their index terms (the index's own tokenizer, memoized).

    In a question written mostly in Cyrillic, every Latin-script word is a name, English word or not: a
    Russian speaker writes `Windsurf` or `Slack` in Latin letters because that is what the thing is called,
    never as a paraphrase of the work's words; only a word the search leaves out as `generic`
    (synonyms.GENERIC: `fix`, `try`) names nothing."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query) if len(w) >= 3))
    if not words:
        return []
    terms = terms_of(words)
    unseen = [w for w in words if (ts := list(terms.get(w, ()))) and not any(t in df for t in ts)]
    if not unseen:
        return []
    if script_of(_TOKEN.findall(query)) == "cyrillic":  # the query's words, as fusion weighs its scripts
        return [w for w in unseen if not any(t in generic for t in terms.get(w, ()))]
    english = _english()
    return [w for w in unseen if w not in english and w.replace("'", "") not in english]


_LOCK = threading.Lock()
_ENGLISH: frozenset[str] | None = None


def _english() -> frozenset[str]:
    """The English word list (~160k word forms, ~8 MB): loaded once per process, on the first query that
    has a word the index never saw."""
    global _ENGLISH
    with _LOCK:
        if _ENGLISH is None:
            from spellchecker import SpellChecker

            _ENGLISH = frozenset(SpellChecker(language="en", distance=1).word_frequency.keys())
        return _ENGLISH
