"""Fusion and actors of one search, in SQL: lane hits → RRF with coverage → per-lane slots → actors.

The hits go into the session cursor's `_hits` table as one numbers-only literal, and the
three statements prepared on that cursor (`warehouse/search/session.py`) are `EXECUTE`d with
arguments typed exactly as declared: a type mismatch re-binds the statement every time, and
bound Python parameters would import pandas into the search process (ADR 0003 "Serving").
Coverage is a bit mask per hit: which idf-weighted query-term groups it matched.

Actor profiles (the internal lane `actors`) do not enter fusion: `nominate` first turns the top
profile hits into episodes-lane hits of each actor's representative episode (ak_actor_profile),
so an actor found by what it is ranks by that match and has evidence the response returns (KC-7).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import NamedTuple

import duckdb

from warehouse.core import literals
from warehouse.core.sqlfiles import render
from warehouse.home.access_counter import NEUTRAL, PRIOR_MAX
from warehouse.home.feedback import FEEDBACK_BOOST
from warehouse.search import synonyms
from warehouse.search.contract import LANES, SearchRequest
from warehouse.search.lane_runner import K_LANE, Hit
from warehouse.search.lane_status import ACTOR_LANE, LaneInfo

RRF_K = 60
MIN_COVERAGE = 0.2  # idf-weighted share of query terms an item must match to be an answer
MIN_BEST_COVERAGE = 0.3  # below this even for the best item, the query has no answer here
OOV_WEIGHT = 0.5  # weight of a query term the index has never seen, relative to the rarest known term
MAX_COVERAGE_TERMS = 62  # one bit per term in a BIGINT
# A query's anchors are its specific groups: idf at least this share of its rarest known group's.
# An item must match an anchor (fuse.sql): "index", "log", "old" do not answer a question about
# an Elasticsearch index lifecycle, whatever their share of the query (ADR 0003 "Precision").
ANCHOR_SHARE = 0.6
# When the index has never seen most of the words a query names (its non-identifier groups), the
# topic is absent: "elasticsearch index lifecycle policy" knows only "index" and "log".
MAX_UNKNOWN_SHARE = 0.5
# A skill used by episodes that answer the query (issue 11: evidence over word overlap): its relevance
# grows by up to SKILL_EVIDENCE_BOOST once those episodes' relevance, relative to the best episode's,
# sums to SKILL_EVIDENCE_CAP (fuse.sql)
SKILL_EVIDENCE_BOOST = 0.5
SKILL_EVIDENCE_CAP = 1.0
WORD_CHECKED = 8  # candidates of the one-document gate whose words are checked (word_groups_in_one_doc)
# The trust prior (issue 16, docs/search.md "Trust prior"): relevance × (1 + TRUST_BETA·(2·trust − 1)), trust
# in [0, 1] from ak_trust (0.5 neutral: exactly ×1). At most ±TRUST_BETA, so an item whose relevance is below
# trust_bound() = (1 − β)/(1 + β) ≈ 0.905 of another's in its lane can never pass it by trust alone.
TRUST_BETA = PRIOR_MAX  # 0.05, access_counter.prior's bound
NEUTRAL_TRUST = NEUTRAL
NOMINATED = 3  # actor profiles that may nominate their representative episode
NOMINATION = 1.5  # the best profile's episode scores as the best episode hit times this: it comes first


def read_profiles(con: duckdb.DuckDBPyConnection) -> dict[int, int]:
    """Actor profile document -> its representative episode's document: read once per generation."""
    return {int(d): int(r) for d, r in con.execute("SELECT doc_id, ref_doc_id FROM ak_actor_profile").fetchall()}


def nominate(hits: list[Hit], profiles: Mapping[int, int]) -> tuple[list[Hit], set[int]]:
    """(the hits of the contract's lanes, the episode documents actor profiles nominated).

    The top `NOMINATED` profile hits each become an episodes-lane hit of the actor's representative
    episode, scored at the profile's share of the best profile score times the best episode score
    (`NOMINATION`) and matching the profile's terms; an episode the lane already holds keeps the
    higher score and both term sets. Lexical scores of two lanes are not comparable, their ratios
    to each lane's best are; a query that names a kind of actor (the only one profiles answer) is
    answered first by the actor whose profile matches best."""
    lane_hits = [h for h in hits if h[0] != ACTOR_LANE]
    profile_hits = [h for h in hits if h[0] == ACTOR_LANE and h[1] in profiles][:NOMINATED]
    if not profile_hits:
        return lane_hits, set()
    episode_hits = {h[1]: i for i, h in enumerate(lane_hits) if h[0] == "episodes"}
    top_episode = max((lane_hits[i][2] for i in episode_hits.values()), default=profile_hits[0][2])
    nominated: set[int] = set()
    for _, doc_id, lex, terms in profile_hits:
        ref, score = profiles[doc_id], lex / profile_hits[0][2] * top_episode * NOMINATION
        if ref in episode_hits:
            lane, d, had, had_terms = lane_hits[episode_hits[ref]]
            lane_hits[episode_hits[ref]] = (lane, d, max(had, score), sorted(set(had_terms) | set(terms)))
        else:
            episode_hits[ref] = len(lane_hits)
            lane_hits.append(("episodes", ref, score, list(terms)))
            nominated.add(ref)
    return lane_hits, nominated


def read_newest(con: duckdb.DuckDBPyConnection) -> str:
    """The newest activity in the index as a UTC literal: the actors' recency reference."""
    newest = con.execute("SELECT strftime(max(coalesce(ended_at, started_at)) AT TIME ZONE 'UTC', "
                         "'%Y-%m-%d %H:%M:%S.%f+00') FROM ak_episode").fetchone()[0]
    return newest or "epoch"


class Fused(NamedTuple):
    """What fusion gives the response: items in answer order, actor rows, and (semantic on) each
    item's best similarity (its `why`: `vec: 0.83`; None with the semantic side off)."""

    items: list[tuple]  # slots.sql's columns but the last (vec)
    actors: list[tuple]
    similarity: dict[tuple[str, int], float] | None


def fuse(sess: duckdb.DuckDBPyConnection, hits: list[Hit], weights: dict[str, float], req: SearchRequest,
         exp: synonyms.Expansion, lane_info: Mapping[str, LaneInfo], newest: str,
         semantic: tuple[Mapping[tuple[str, int], float], float, float] | None = None,
         feedback: Mapping[int, float] | None = None,
         trust: Mapping[int, float] | None = None,
         on_items: Callable[[list[tuple]], object] | None = None,
         common: frozenset[str] = frozenset()) -> Fused:
    """Fused items, actor rows and similarities on the session cursor `sess` (`newest`: the actors'
    recency reference, read_newest).

    `feedback`: document id -> feedback score in [-1, 1] (search/feedback_scores.py); it rides in the
    hits literal, so fusion joins nothing for it (fuse.sql `$16`, docs/search.md "Feedback").
    `trust`: document id -> ak_trust score in [0, 1] (search/trust_scores.py; absent = neutral 0.5, a prior
    of exactly 1), in the hits literal too: the bounded prior ×(1 + TRUST_BETA·(2·trust − 1)) (fuse.sql `$17`).

    `semantic` (semantic.enabled): (lane, doc_id) -> the unit's similarity (vector.similarities), which
    rides in the hits literal as well, and the two similarity gates; fusion then also ranks by meaning
    inside each lane (sql/queries/search/fuse_semantic.sql).

    `on_items` is called with the items before the actor statement runs (the search starts reading
    the items' details beside it).

    `common`: the index terms of the query's common English words (search/common_words.py): each weighs at
    most as the heaviest specific group of the query (`cap_common`)."""
    terms = exp.terms[:MAX_COVERAGE_TERMS]
    bit = {t: 1 << i for i, t in enumerate(terms)}
    n_docs = max(sum(int(v.get("docs", 0)) for v in lane_info.values()), 1)
    df = {t: d for t, _, d in exp.found}
    max_idf = math.log(1 + n_docs / 0.5)

    def weight(group: list[str]) -> float:
        # a group weighs as its rarest known term; an unknown one may be a paraphrase, not a
        # missing topic: it weighs OOV_WEIGHT of the rarest possible term
        known = [df[t] for t in group if t in df]
        return math.log(1 + n_docs / (min(known) + 0.5)) if known else OOV_WEIGHT * max_idf

    groups = [g for g in exp.groups if g[0] in bit]
    masks = [sum(bit.get(t, 0) for t in g) for g in groups]
    idf = cap_common(groups, [weight(g) for g in groups], df, common)
    anchor = anchor_mask(groups, masks, idf, df)
    # most of the query's words unknown: the topic is absent — unless the query names a thing the
    # index knows (an identifier: `WarmUp`) that outweighs the unknown words: the query is then
    # about that thing, its unknown words perhaps another language's ("кто эксплуатировал
    # переполнение буфера … WarmUp" over English work). A common name does not outweigh them
    # ("… переполнение буфера на iya.ru" stays empty; names_a_known_thing). The vector side's gates are calibrated
    # behind this gate: it does not answer an absent topic either
    if unknown_share(groups, df) > MAX_UNKNOWN_SHARE and not names_a_known_thing(groups, idf, df):
        if semantic is None or not across_scripts(groups, df):
            return Fused([], [], None)
        # the lexicon says absent, but it cannot see across languages: a Russian question about English
        # work shares no words with it (issue 24). What the few known words matched is no evidence; an
        # answer by meaning still is, behind the similarity gates
        hits = [(lane, d, 0.0, []) for lane, d, _, _ in hits]
    # the "match at least 2 groups" gate holds for one document, not for an episode's events together
    min_groups = 2 if len(groups) >= 3 else 1
    one_doc = word_groups_in_one_doc(sess, groups, hits, min_groups)
    lexical_groups = min_groups if one_doc >= min_groups else len(groups) + 1
    sess.execute("DELETE FROM _hits; DELETE FROM _fused")
    fb, tr, sim = feedback or {}, trust or {}, (semantic[0] if semantic is not None else {})
    rows = literals.number_rows((LANES.index(h[0]), h[1], float(h[2]), sum(bit.get(t, 0) for t in h[3]),
                                 float(fb.get(h[1], 0.0)), float(tr.get(h[1], NEUTRAL_TRUST)),
                                 sim.get((h[0], h[1]))) for h in hits)
    doc_ids = ",".join(str(int(h[1])) for h in hits)
    sess.execute(render("hits", doc_ids=doc_ids, rows=rows))
    quotas = _quotas(weights, req)
    # EXECUTE arguments typed exactly as declared: a type mismatch re-binds the statement each time
    args = [literals.double(weights.get(ln, 0.0)) for ln in LANES] + [
        literals.double(sum(idf) or 1.0), literals.double(MIN_COVERAGE), literals.double(MIN_BEST_COVERAGE),
        literals.bigint(lexical_groups), literals.bigint(K_LANE), literals.double(RRF_K),
        literals.integers(masks), literals.doubles(idf)]
    skill_evidence = [literals.double(SKILL_EVIDENCE_BOOST / SKILL_EVIDENCE_CAP), literals.double(SKILL_EVIDENCE_CAP),
                      literals.double(MIN_COVERAGE)]  # each parameter once (fuse.sql)
    anchor_arg = literals.bigint(anchor)
    feedback_arg = literals.double(FEEDBACK_BOOST)  # fuse.sql $16 / fuse_semantic.sql $18: bounded, see there
    trust_arg = literals.double(TRUST_BETA)  # fuse.sql $17 / fuse_semantic.sql $19
    if semantic is None:
        sess.execute(f"EXECUTE akw_fuse({', '.join([*args, *skill_evidence, anchor_arg, feedback_arg, trust_arg])})")
    else:
        _, vec_min, vec_min_best = semantic
        gates = [literals.double(vec_min), literals.double(vec_min_best)]
        sem_args = [*args, *gates, anchor_arg, *skill_evidence, feedback_arg, trust_arg]
        sess.execute(f"EXECUTE akw_fuse_sem({', '.join(sem_args)})")
    slots = [quotas.get(ln, 0) for ln in LANES] + [int(req.limit)]
    rows = sess.execute(f"EXECUTE akw_slots({', '.join(literals.bigint(x) for x in slots)})").fetchall()
    similarity = {(r[0], int(r[1])): float(r[-1]) for r in rows if r[-1] is not None} if semantic is not None else None
    items = [r[:-1] for r in rows]
    if on_items is not None and items:
        on_items(items)
    actors = sess.execute(f"EXECUTE akw_actors('{newest}'::TIMESTAMPTZ)").fetchall()
    return Fused(items, actors, similarity)


def trust_bound(beta: float = TRUST_BETA) -> float:
    """The relevance ratio below which trust alone can never reorder two items: (1 − β)/(1 + β)."""
    return (1 - beta) / (1 + beta)


def _group_bits(groups: list[list[str]]) -> dict[str, int]:
    """term -> bit mask of the query groups it belongs to (equivalents are shared)."""
    of_term: dict[str, int] = {}
    for i, g in enumerate(groups):
        for t in g:
            of_term[t] = of_term.get(t, 0) | 1 << i
    return of_term


def _groups_of(of_term: Mapping[str, int], terms: list[str]) -> int:
    """How many query groups one hit's terms match."""
    matched = 0
    for t in terms:
        matched |= of_term.get(t, 0)
    return matched.bit_count()


def groups_in_one_doc(groups: list[list[str]], hits: list[Hit]) -> int:
    """The most query groups one lexical hit (an event, a chunk, a skill document) matches by itself.

    An episode's coverage counts the terms of all its events, so words scattered over a long session
    ("state" in a status line, "backend" in a teammate's name, "s3" in a backup step) add up to a
    topic it never touched; fusion's "at least 2 groups" gate asks for them in one document (ADR 0003 "Precision")."""
    of_term = _group_bits(groups)
    return max((_groups_of(of_term, h[3]) for h in hits), default=0)


def word_groups_in_one_doc(sess: duckdb.DuckDBPyConnection, groups: list[list[str]], hits: list[Hit],
                           need: int) -> int:
    """`groups_in_one_doc`, where a word of the query counts in a document only when that document
    uses it as a word: a camelCase part (`ActiveSqlTransaction` -> "active") is not evidence that it
    talks about "active" (issue 11: "who migrated the ldap directory to active directory" met the
    alembic skill that names `psycopg.errors.ActiveSqlTransaction`). Checked only when the gate
    would pass, on up to `WORD_CHECKED` of the best candidates, in one statement
    (sql/queries/search/word_terms.sql): a query that names an identifier itself matches its parts."""
    of_term = _group_bits(groups)  # once per search, not once per hit
    counts = [_groups_of(of_term, h[3]) for h in hits]
    best = max(counts, default=0)
    if best < need or any(g[0].startswith("=") for g in groups):
        return best
    ranked = sorted((h for h, n in zip(hits, counts, strict=True) if n >= need), key=lambda h: -h[2])
    checked = ranked[:WORD_CHECKED]
    if len(ranked) > len(checked):
        return best  # many documents meet the gate: a real topic, not one identifier's parts
    ids = ",".join(sorted({str(int(h[1])) for h in checked}))
    words = {int(d): set(t) for d, t in sess.execute(render("word_terms", doc_ids=ids)).fetchall()}
    out = 0
    for _, doc_id, _, terms in checked:
        if doc_id in words:
            terms = [t for t in terms if t in words[doc_id] or t.startswith("=")]
        out = max(out, _groups_of(of_term, terms))
    return out


def unknown_share(groups: list[list[str]], df: Mapping[str, int]) -> float:
    """Share of the query's word groups (identifiers aside: their parts are words of their own)
    that no indexed document contains."""
    words = [g for g in groups if not g[0].startswith("=")]
    return sum(not any(t in df for t in g) for g in words) / len(words) if words else 0.0


def script_of(words: list[str]) -> str | None:
    """The script most of `words` are written in: "cyrillic", "latin", or None (none has letters)."""
    cyr = sum(any("\u0400" <= c <= "\u04ff" for c in w) for w in words)
    lat = sum(any("a" <= c <= "z" for c in w.lower()) for w in words)
    return None if cyr == lat == 0 else ("cyrillic" if cyr > lat else "latin")


def across_scripts(groups: list[list[str]], df: Mapping[str, int]) -> bool:
    """The words the index has never seen are written in another script than the ones it knows (or, knowing
    none, they are Cyrillic): a question in one language about work logged in another (issue 24), which no
    lexicon bridges. Words of the same script that the index lacks name a topic it does not hold."""
    words = [g for g in groups if not g[0].startswith("=")]
    unknown = script_of([g[0] for g in words if not any(t in df for t in g)])
    known = script_of([next(t for t in g if t in df) for g in words if any(t in df for t in g)])  # as indexed
    return unknown is not None and unknown != known and (known is not None or unknown == "cyrillic")


def names_a_known_thing(groups: list[list[str]], idf: list[float], df: Mapping[str, int]) -> bool:
    """The query names an identifier the index knows, and that name with the query's other known
    words carries at least MIN_BEST_COVERAGE of the query's weight, the floor of a best answer.

    An identifier's parts (`warm` of `WarmUp`, `176` of `176.99.5.35`) are groups of their own for
    ranking; here they are the name again and do not count, so a long name does not outweigh the
    unknown words by its many parts."""
    names = [g[0][1:] for g in groups if g[0].startswith("=") and any(t in df for t in g)]
    if not names:
        return False
    segments = {p for n in names for p in re.split(r"[._:/-]+", n) if p}

    def part(g: list[str]) -> bool:
        return not g[0].startswith("=") and any(seg.startswith(t) for t in g for seg in segments)

    kept = [(any(t in df for t in g), w) for g, w in zip(groups, idf, strict=True) if not part(g)]
    total = sum(w for _, w in kept)
    return total > 0 and sum(w for known, w in kept if known) >= MIN_BEST_COVERAGE * total


def cap_common(groups: list[list[str]], idf: list[float], df: Mapping[str, int], common: frozenset[str]) -> list[float]:
    """A common word's group weighs at most as the heaviest specific (not common) group the index knows: in a
    small corpus "conclude" is as rare as a name, and a rare plain word must not outweigh, or anchor alone,
    the words that say what the work was. A query without a known specific group keeps its weights."""
    if not common:
        return idf
    specific = [w for g, w in zip(groups, idf, strict=True) if g[0] not in common and any(t in df for t in g)]
    if not specific:
        return idf
    cap = max(specific)
    return [min(w, cap) if g[0] in common else w for g, w in zip(groups, idf, strict=True)]


def anchor_mask(groups: list[list[str]], masks: list[int], idf: list[float], df: Mapping[str, int]) -> int:
    """Bits of the query's anchor groups: known groups whose weight is at least ANCHOR_SHARE of the
    heaviest known group's, and known identifiers (`iya.ru`, `shop-api`: a named thing is specific
    whatever its document frequency; in a large corpus a plain word like "block" can be rarer).
    A group no document has cannot be matched, so it anchors nothing."""
    known = [w for g, w in zip(groups, idf, strict=True) if any(t in df for t in g)]
    if not known:
        return 0
    floor = ANCHOR_SHARE * max(known)
    out = 0
    for g, m, w in zip(groups, masks, idf, strict=True):
        if (w >= floor or g[0].startswith("=")) and any(t in df for t in g):
            out |= m  # groups share the bits of common equivalents: OR, not a sum
    return out


def _quotas(weights: dict[str, float], req: SearchRequest) -> dict[str, int]:
    """Slots each included lane is sure of: its share of `limit` by routing weight, at least one."""
    lanes = [ln for ln in LANES if ln in req.include and weights.get(ln, 0) > 0]
    total = sum(weights[ln] for ln in lanes) or 1.0
    return {ln: max(1, int(req.limit * weights[ln] / total)) for ln in lanes}
