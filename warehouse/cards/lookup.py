"""What every card shares: the published generation (read-only), id resolution by mart lookup, the budget.

Ids are never parsed: an id opens when a mart row holds it — `ak_actor.actor_id`,
`ak_episode.episode_id`, `ak_document.doc_key` (search items and evidence), `ak_event.event_id`,
`ak_skill.skill_id` or a skill name (+ its source), a code chunk's `doc_key`. So the cards keep
working when the search side changes its id scheme, as long as the id is a mart row id. An id no
mart holds is `KNOWLEDGE_NOT_FOUND`, never an empty card.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from warehouse.cards.contract import DEFAULT_MAX_CHARS, MAX_MAX_CHARS, Cut
from warehouse.cards.texts import Lang, say
from warehouse.core import db
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.redact import redact
from warehouse.home import generation
from warehouse.search.items import iso as iso  # one timestamp format for search and cards
from warehouse.search.snippets import untrusted


@contextmanager
def published(generations: Path) -> Iterator[tuple[duckdb.DuckDBPyConnection, str]]:
    """The published generation, opened read-only, and its index_rev.

    Opened with the one reader policy (generation.open_current): DuckDB refuses a second connection to one
    file with a different configuration in the same process, and a card is often opened right after a search."""
    con, gen = generation.open_current(generations)
    try:
        con.execute("SET TimeZone = 'UTC'")
        yield con, gen.index_rev
    finally:
        con.close()


rows = db.rows  # the cards read dict rows with parameters as literals (no pandas in a CLI process)


def one(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> dict[str, Any] | None:
    found = rows(con, sql, params or ())
    return found[0] if found else None


def not_found(kind: str, ident: str, index_rev: str, hint: str | None = None) -> KnowledgeError:
    return KnowledgeError(Code.NOT_FOUND, f"no {kind} with this id in the published index ({index_rev})"
                          + (f"; {hint}" if hint else ""), kind=kind, id=redact(ident), index_rev=index_rev)


def json_or_none(text: str | None) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


# -- budget ------------------------------------------------------------------------------------
def check_max_chars(max_chars: int | None) -> int:
    if max_chars is None:
        return DEFAULT_MAX_CHARS
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or not 200 <= max_chars <= MAX_MAX_CHARS:
        raise KnowledgeError(Code.INVALID_REQUEST, f"max_chars: an integer from 200 to {MAX_MAX_CHARS}",
                             field="max_chars")
    return max_chars


@dataclass
class Budget:
    """`max_chars` per long text; every cut is recorded with the command that shows the rest. `lang`: the
    language of the cut notes (the card's one language, decided by the caller)."""

    max_chars: int
    rest_command: str  # e.g. "akw get skill deploy-iya-ru --source skill:… "
    redact_text: bool = True
    redact_pii: bool = True
    lang: Lang = "en"
    cuts: list[Cut] = field(default_factory=list)

    def text(self, name: str, value: str | None, limit: int | None = None) -> str | None:
        """Indexed text for the card: redacted, cut to the budget with a marker, wrapped as untrusted data."""
        if value is None:
            return None
        if self.redact_text:
            value = redact(value, self.redact_pii) or ""
        limit = self.max_chars if limit is None else limit
        total = len(value)
        if total > limit:
            value = value[:limit] + say("budget.cut", self.lang, limit=limit, total=total, rest=self.rest(total))
            self.cuts.append(Cut(field=name, shown_chars=limit, total_chars=total, rest=self.rest(total)))
        return untrusted(value)

    def rest(self, total: int) -> str:
        return f"{self.rest_command} --max-chars {min(max(total, 200), MAX_MAX_CHARS)}"

    def listing(self, name: str, shown: int, total: int) -> None:
        """A list shortened to its first `shown` rows (rows, not characters: `rest` says so)."""
        if total > shown:
            self.cuts.append(Cut(field=name, shown_chars=shown, total_chars=total,
                                 rest=say("budget.rows", self.lang, shown=shown, total=total)))


# -- task terms (deterministic: words, no model) -----------------------------------------------
_WORD = re.compile(r"[\w][\w.\-]*[\w]|\w", re.UNICODE)
STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how", "i", "in", "into",
    "is", "it", "its", "me", "my", "of", "on", "or", "our", "please", "the", "this", "that", "to", "use", "using",
    "want", "we", "what", "when", "where", "which", "who", "why", "will", "with", "you", "your", "need", "needs",
    "should", "would", "could", "и", "в", "во", "на", "по", "с", "со", "к", "ко", "о", "об", "от", "до", "для",
    "из", "за", "что", "как", "это", "мне", "нам", "нужно", "надо", "чтобы", "или", "а", "но", "не", "ли", "же",
    "бы", "кто", "где", "когда", "почему", "какой", "какая", "какие", "его", "ее", "их", "мы", "вы", "ты", "он",
    "она", "они", "я", "есть", "был", "была", "были", "будет",
})


def stem(word: str) -> str:
    w = word.lower()
    return w[: max(4, len(w) - 2)] if len(w) > 5 else w


def terms(text: str) -> list[str]:
    """Distinct content words of a text, lower-cased, in first-seen order."""
    out: dict[str, None] = {}
    for m in _WORD.finditer(text.lower()):
        w = m.group(0).strip(".-")
        if len(w) >= 3 and w not in STOP and not w.isdigit():
            out.setdefault(w, None)
    return list(out)


def matched(task_terms: list[str], text: str | None) -> list[str]:
    """The task terms a text contains (by stem: `deploying` matches `deploy`), in task order."""
    if not text or not task_terms:
        return []
    stems = {stem(w) for w in terms(text)}
    words = set(terms(text))
    out = []
    for t in task_terms:
        st = stem(t)
        if t in words or st in stems or any(s.startswith(st) or st.startswith(s) for s in stems if len(s) >= 4):
            out.append(t)
    return out
