"""Per-generation memo of query chunks -> index terms and of terms -> vocabulary entries.

Tokenizing a query by the index's SQL macro and looking its terms up cost two statements
(~3 ms of a 35 ms search), and agents repeat words across queries, modes and filters. No term
spans whitespace (sql/index/tokenizer.sql: akw_terms(t) is the concatenation of
akw_chunk_terms over akw_chunks(t)), so a query's terms are the union of its chunks' terms and
each distinct chunk needs the macro once per generation. The chunking itself is the one
character class of `akw_chunks`, mirrored here (a test checks every whitespace-like code point).
Both memos are pure functions of the generation they were filled from: the engine makes a new
one when it opens another generation, so answers never depend on earlier searches.
"""

from __future__ import annotations

import re
import threading

import duckdb

from warehouse.core import literals
from warehouse.search import lexical, translation

# akw_chunks: these characters become ' ', then the text splits on ' ' (empty chunks included)
_WHITESPACE = re.compile("[\t\n\r\x0b\x0c\x85\xa0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]")
MAX_ENTRIES = 20_000  # per memo; full -> emptied (bounded memory, no eviction order to reason about)
MAX_CHUNK_CHARS = 64  # longer chunks (URLs, blobs) rarely repeat: tokenized every time, never kept


def chunks(text: str) -> list[str]:
    """`akw_chunks(text)` in Python: whitespace-separated chunks, '' between adjacent separators."""
    return _WHITESPACE.sub(" ", text).split(" ")


class TermCache:
    """Chunk -> terms and term -> (term_id, df) | None for one published generation."""

    def __init__(self) -> None:
        self._chunk_terms: dict[str, tuple[str, ...]] = {}
        self._vocab: dict[str, tuple[int, int] | None] = {}
        self._loans: dict[str, tuple[str, ...]] = {}
        self._lock = threading.Lock()

    def tokens(self, sess: duckdb.DuckDBPyConnection, query: str) -> list[str]:
        """The query's distinct index terms, sorted."""
        parts = [c for c in dict.fromkeys(chunks(lexical.query_text(query))) if c]
        known = self.chunk_terms(sess, parts)
        return sorted({t for c in parts for t in known[c]})

    def chunk_terms(self, sess: duckdb.DuckDBPyConnection, parts: list[str]) -> dict[str, tuple[str, ...]]:
        """Chunk -> its index terms; unseen chunks go through the session's prepared `akw_chunk_tokens`
        statement (rows of temp table `_query`) in one call."""
        with self._lock:
            known = {c: self._chunk_terms[c] for c in parts if c in self._chunk_terms}
        missing = [c for c in dict.fromkeys(parts) if c not in known]
        if missing:
            values = ", ".join(f"({literals.text(c)})" for c in missing)
            sess.execute(f"DELETE FROM _query; INSERT INTO _query VALUES {values}")
            got = {c: tuple(t or []) for c, t in sess.execute("EXECUTE akw_chunk_tokens").fetchall()}
            got.update((c, ()) for c in missing if c not in got)
            known.update(got)
            keep = {c: t for c, t in got.items() if len(c) <= MAX_CHUNK_CHARS}
            with self._lock:
                if len(self._chunk_terms) + len(keep) > MAX_ENTRIES:
                    self._chunk_terms.clear()
                self._chunk_terms.update(keep)
        return known

    def lookup(self, cur: duckdb.DuckDBPyConnection, terms: list[str]) -> list[tuple[str, int, int]]:
        """`lexical.lookup`: (term, term_id, df) of the known terms, by term_id; unseen terms in one statement."""
        with self._lock:
            known = {t: self._vocab[t] for t in terms if t in self._vocab}
        missing = [t for t in terms if t not in known]
        if missing:
            found = {t: (i, df) for t, i, df in lexical.lookup(cur, missing)}
            got = {t: found.get(t) for t in missing}
            known.update(got)
            with self._lock:
                if len(self._vocab) + len(got) > MAX_ENTRIES:
                    self._vocab.clear()
                self._vocab.update(got)
        return sorted(((t, e[0], e[1]) for t, e in known.items() if e is not None), key=lambda r: r[1])

    def loanwords(self, cur: duckdb.DuckDBPyConnection, stems: list[str]) -> dict[str, list[str]]:
        """`translation.loanword_terms`: stem -> the index terms it spells; unseen stems in one statement
        (~2 ms a stem at 1M documents, so a repeated Russian question does not pay it again)."""
        with self._lock:
            known = {s: self._loans[s] for s in stems if s in self._loans}
        missing = [s for s in dict.fromkeys(stems) if s not in known]
        if missing:
            found = translation.loanword_terms(cur, missing)
            got = {s: tuple(found.get(s, ())) for s in missing}
            known.update(got)
            with self._lock:
                if len(self._loans) + len(got) > MAX_ENTRIES:
                    self._loans.clear()
                self._loans.update(got)
        return {s: list(t) for s, t in known.items() if t}
