-- Fusion of per-lane lexical hits (contract 000 §7), in SQL; prepared once per search cursor.
-- Input: _hits (hits.sql) = each lane's top hits, bits: bit i = matched query term i.
-- Parameters: $1..$3 lane weights (episodes, code, skills), $4 total group weight, $5 min item
-- coverage, $6 min best coverage, $7 min groups matched (fusion passes groups + 1, unreachable, when no
-- single hit matches that many groups: scattered words are not evidence), $8 top K per lane, $9 RRF k,
-- $10/$11 the groups' term masks and weights ($12..$14: the skill evidence boost, below):
-- a group is a query term with its RU/EN equivalents, weighted by idf (an unknown term weighs much:
-- a query about something never indexed covers little). Lists, not a temp table: one write fewer.
-- $15 the anchor mask: the bits of the query's specific groups (idf at least fusion.ANCHOR_SHARE of
-- its rarest known group's).
-- 1. one item per lane group (an episode: its best event, matching the terms of all its events;
--    a skill name deployed in several roots; a code chunk) whose terms include an anchor: an item
--    that matches only the query's common words is not evidence, however many of them it has;
-- 2. coverage = weighted share of the groups an item matches; relevance = BM25 × (0.2 + 0.8·coverage);
--    items below $5 are not answers, and when even the best item covers less than $6 of the query,
--    or no item matches $7 groups, there is no answer at all: a lone generic word is not evidence
--    (FR-5.7, nothing invented);
-- 3. each lane keeps its top $8; rank -> RRF score weight/(k + rank);
-- 4. cap_rank prepares the diversity caps (<= 3 episodes per actor, <= 5 code hits per path).
-- Evidence ($12 = boost / cap, $13 cap, $14 = $5): a skill used by episodes that answer this query
-- (episode hits of the same search with coverage >= $14; names from ak_document.skills, which
-- ak_skill_use records) ranks above one that only shares words: relevance × (1 + $12·min(mass, $13)),
-- mass = the summed relevance of those episodes relative to the best episode (a weak neighbour
-- episode counts little). Bounded, so a skill that matches the query well is not buried by one that
-- was merely used a lot. Feedback ($16 = feedback.FEEDBACK_BOOST): relevance × (1 + $16·fb), fb = the
-- item's feedback score plus, for an episode, its actor's, clamped to [-1, 1] (_hits.fb, mapped to
-- documents by the engine once per generation and feedback change, not per search: no join here):
-- it reorders items of a lane whose relevance is within a factor (1 + $16)/(1 - $16) of each other
-- and never touches the coverage gates (docs/search.md "Feedback"). Trust prior ($17 = fusion.TRUST_BETA):
-- relevance × (1 + $17·(2·tr − 1)), tr = the item's ak_trust score (_hits.tr, 0.5 = neutral: exactly ×1),
-- at most ±$17: an item whose relevance is below (1 − $17)/(1 + $17) of another's never passes it by
-- trust alone (docs/search.md "Trust prior").
-- Each parameter is used once: a parameter used twice made DuckDB bind the
-- prepared statement again on every EXECUTE (measured: fusion 2.9 -> 5 ms).
-- Aggregates, not windows, partition by group: DuckDB pays per window partition, and here
-- nearly every group is a partition of its own. No lambdas: a prepared statement with a lambda
-- is re-bound on every EXECUTE (measured ~3 ms), and EXECUTE arguments are typed exactly for
-- the same reason.
PREPARE akw_fuse AS INSERT INTO _fused
WITH grps AS (SELECT unnest($10::BIGINT[]) AS mask, unnest($11::DOUBLE[]) AS weight),
best AS (
    SELECT lane, arg_max(doc_id, (lex, -doc_id)) AS doc_id, bit_or(bits) AS grp_bits
    FROM _hits GROUP BY lane, grp
    HAVING (bit_or(bits) & $15::BIGINT) <> 0
),
matched AS (
    SELECT b.lane, b.doc_id, b.grp_bits, coalesce(sum(g.weight), 0) / $4::DOUBLE AS coverage,
           count(g.mask) AS groups_matched
    FROM best b LEFT JOIN grps g ON (b.grp_bits & g.mask) <> 0
    GROUP BY b.lane, b.doc_id, b.grp_bits
),
covered AS (
    SELECT h.*, m.grp_bits, m.coverage, m.groups_matched
    FROM matched m JOIN _hits h USING (lane, doc_id)
),
answering AS (  -- the episodes that answer the query (one row per episode) and how well
    SELECT skills, lex * (0.2 + 0.8 * coverage) AS relevance
    FROM covered WHERE lane = 'episodes' AND coverage >= $14::DOUBLE
),
evidence AS (  -- per skill name: how many of them used it, and their relevance relative to the best one
    SELECT name, count(*) AS episodes, sum(relevance) / (SELECT max(relevance) FROM answering) AS mass
    FROM (SELECT unnest(skills) AS name, relevance FROM answering)
    GROUP BY name
),
boosted AS (
    SELECT c.*, coalesce(e.episodes, 0) AS evidence,
           lex * (0.2 + 0.8 * coverage)
               * (1 + $12::DOUBLE * least(coalesce(e.mass, 0), $13::DOUBLE))
               * (1 + $16::DOUBLE * fb) * (1 + $17::DOUBLE * (2 * tr - 1)) AS relevance
    FROM covered c LEFT JOIN evidence e ON c.lane = 'skills' AND e.name = c.grp
),
ranked AS (
    SELECT *, row_number() OVER (PARTITION BY lane ORDER BY relevance DESC, doc_id) AS lane_rank
    FROM boosted
    WHERE coverage >= $5::DOUBLE AND (SELECT max(coverage) FROM covered) >= $6::DOUBLE
      AND (SELECT max(groups_matched) FROM covered) >= $7::BIGINT
),
scored AS (
    SELECT *,
           (CASE lane WHEN 'episodes' THEN $1::DOUBLE WHEN 'code' THEN $2::DOUBLE WHEN 'skills' THEN $3::DOUBLE ELSE 0 END)
               / ($9::DOUBLE + lane_rank) AS rrf,
           relevance / max(relevance) OVER (PARTITION BY lane) AS rel,
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
       list_position(c.ids, s.doc_id) AS cap_rank, evidence, NULL AS vec
FROM scored s JOIN caps c USING (lane, cap_grp);
