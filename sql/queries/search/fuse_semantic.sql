-- Fusion with the semantic side (semantic.enabled): fuse.sql plus each lane's vector hits, fused
-- with the lexical ranking by RRF **inside** the lane; the lanes stay separate (contract 000 §4).
-- Input: _hits (hits.sql; a vector-only unit is a row with lex 0 and no bits; vec = the unit's cosine
-- similarity to the query, NULL when the vector side did not return it). Parameters $1..$11 as in fuse.sql ($7 may be
-- unreachable: then only vector answers remain), and
-- $12 min similarity of an item, $13 min similarity of the best item (below it the vector side
-- has no answer: an absent topic is still an empty answer, FR-5.7), $14 the anchor mask of fuse.sql's
-- $12: only an item whose terms include an anchor can be a lexical answer (one matching only the
-- query's common words is not evidence); a vector answer needs no anchor. $15..$17 the skill
-- evidence boost of fuse.sql's $12..$14 (a skill used by the episodes that answer the query).
-- $18 the feedback boost of fuse.sql's $16 (on the lexical relevance and on the similarity ordering),
-- $19 the trust prior of fuse.sql's $17 (the same two orderings).
-- An item is an answer by lexical evidence (fuse.sql's coverage gates) or by similarity (>= $12,
-- when the best >= $13). Within a lane: lex_rank over the lexical answers, vec_rank over the items
-- at or above $12; lane score = 1/(k + lex_rank) + 1/(k + vec_rank); lane_rank orders by it.
-- rel (actors' evidence weight) is the larger of the lexical relevance share and the similarity
-- share, so an actor found only by meaning is not weighed as if it had no evidence.
-- Each parameter is named once (a value needed twice rides as a column: rrf_k, the flags of `flagged`):
-- a parameter named twice makes DuckDB re-bind and re-plan the statement on every EXECUTE
-- (tests/test_prepared_statements.py).
PREPARE akw_fuse_sem AS INSERT INTO _fused
WITH grps AS (SELECT unnest($10::BIGINT[]) AS mask, unnest($11::DOUBLE[]) AS weight),
best AS (  -- vec: the group's best similarity (an episode's best unit); _fused.vec, the item's `why`.
           -- The group's document: the best lexical one, else (found by meaning only) the most similar one,
           -- so the item points at the event whose passage matched
    SELECT lane, arg_max(doc_id, (lex, coalesce(vec, -1), -doc_id)) AS doc_id, bit_or(bits) AS grp_bits,
           max(vec) AS vec
    FROM _hits GROUP BY lane, grp
),
matched AS (
    SELECT b.lane, b.doc_id, b.grp_bits, b.vec, coalesce(sum(g.weight), 0) / $4::DOUBLE AS coverage,
           count(g.mask) AS groups_matched
    FROM best b LEFT JOIN grps g ON (b.grp_bits & g.mask) <> 0
    GROUP BY b.lane, b.doc_id, b.grp_bits, b.vec
),
covered AS (
    SELECT h.* EXCLUDE (vec), m.grp_bits, m.coverage, m.groups_matched, m.vec,
           (m.grp_bits & $14::BIGINT) <> 0 AS anchored
    FROM matched m JOIN _hits h USING (lane, doc_id)
),
gates AS (
    SELECT coalesce(max(coverage) FILTER (WHERE anchored) >= $6::DOUBLE
                    AND max(groups_matched) FILTER (WHERE anchored) >= $7::BIGINT, false) AS lex_ok,
           coalesce(max(vec), 0) >= $13::DOUBLE AS vec_ok
    FROM covered
),
flagged AS (
    SELECT c.*, c.anchored AND c.coverage >= $5::DOUBLE AND g.lex_ok AS lex_answer,
           coalesce(c.vec >= $12::DOUBLE AND g.vec_ok, false) AS vec_answer
    FROM covered c, gates g
),
answers AS (
    SELECT * FROM flagged WHERE lex_answer OR vec_answer
),
answering AS (  -- the episodes that answer the query lexically (fuse.sql's evidence)
    SELECT skills, lex * (0.2 + 0.8 * coverage) AS relevance
    FROM answers WHERE lane = 'episodes' AND lex_answer AND coverage >= $17::DOUBLE
),
evidence AS (
    SELECT name, count(*) AS episodes, sum(relevance) / (SELECT max(relevance) FROM answering) AS mass
    FROM (SELECT unnest(skills) AS name, relevance FROM answering)
    GROUP BY name
),
boosted AS (
    SELECT a.*, coalesce(e.episodes, 0) AS evidence,
           lex * (0.2 + 0.8 * coverage) * (1 + $15::DOUBLE * least(coalesce(e.mass, 0), $16::DOUBLE)) AS lex_relevance,
           (1 + $18::DOUBLE * fb) * (1 + $19::DOUBLE * (2 * tr - 1)) AS fb_factor
    FROM answers a LEFT JOIN evidence e ON a.lane = 'skills' AND e.name = a.grp
),
fed AS (  -- feedback and trust (fuse.sql's $16, $17, here $18, $19) scale both sides' orderings
    SELECT * EXCLUDE (lex_relevance), lex_relevance * fb_factor AS relevance FROM boosted
),
sides AS (
    SELECT *,
           CASE WHEN lex_answer THEN row_number() OVER (PARTITION BY lane, lex_answer
                                                        ORDER BY relevance DESC, doc_id) END AS lex_rank,
           CASE WHEN vec_answer THEN row_number() OVER (PARTITION BY lane, vec_answer ORDER BY vec * fb_factor DESC, doc_id) END AS vec_rank,
           CASE WHEN bool_or(vec_answer) OVER (PARTITION BY lane) THEN 0.5 + 0.5 * coverage ELSE 1 END AS lex_weight,
           $9::DOUBLE AS rrf_k  -- a column, so the statement names each parameter once (else EXECUTE re-binds)
    FROM fed
),
ranked AS (
    SELECT *, row_number() OVER (PARTITION BY lane ORDER BY coalesce(lex_weight / (rrf_k + lex_rank), 0)
                                                          + coalesce(1 / (rrf_k + vec_rank), 0) DESC, doc_id) AS lane_rank
    FROM sides
),
scored AS (
    SELECT *,
           (CASE lane WHEN 'episodes' THEN $1::DOUBLE WHEN 'code' THEN $2::DOUBLE WHEN 'skills' THEN $3::DOUBLE ELSE 0 END)
               / (rrf_k + lane_rank) AS rrf,
           greatest(coalesce(relevance / nullif(max(relevance) OVER (PARTITION BY lane), 0), 0),
                    CASE WHEN vec_answer THEN vec / max(CASE WHEN vec_answer THEN vec END) OVER (PARTITION BY lane)
                         ELSE 0 END) AS rel,
           CASE lane WHEN 'episodes' THEN 0 WHEN 'code' THEN 1 ELSE 2 END AS lane_priority,
           CASE lane WHEN 'episodes' THEN coalesce(actor_id, doc_key) ELSE cap_key END AS cap_grp
    FROM ranked
    WHERE lane_rank <= $8::BIGINT
),
caps AS (
    SELECT lane, cap_grp, list(doc_id ORDER BY rrf DESC, doc_id) AS ids FROM scored GROUP BY lane, cap_grp
)
SELECT s.lane, lex, bits, doc_id, doc_key, episode_id, actor_id, workspace_id, time, outcome, grp, cap_key, grp_bits,
       coverage, groups_matched, relevance, lane_rank, rrf, rel, lane_priority,
       list_position(c.ids, s.doc_id) AS cap_rank, evidence, vec
FROM scored s JOIN caps c USING (lane, cap_grp);
