-- Fusion of per-lane lexical hits (contract 000 §7), in SQL; prepared once per search cursor.
-- Input: _hits(lane, doc_id, lex, bits) = each lane's top hits, bit i = matched query term i;
-- _docs = those documents' cheap columns; _groups(mask, weight) = query term groups (a term and
-- its RU/EN equivalents) with their idf (unknown terms weigh much: a query about something
-- never indexed covers little). Parameters: $1..$3 lane weights (episodes, code, skills),
-- $4 total group weight, $5 min item coverage, $6 min best coverage, $7 min groups matched,
-- $8 top K per lane, $9 RRF k.
-- 1. coverage = idf-weighted share of the query's groups an item matches; the episodes lane keeps
--    one item per episode (its best event) and counts the terms matched anywhere in the episode;
--    the skills lane keeps one item per skill name (one skill deployed in several roots);
-- 2. relevance = BM25 × (0.2 + 0.8·coverage); items below $5 are not answers, and when even the
--    best item covers less than $6 of the query, or no item matches $7 groups, there is no answer
--    at all: a lone generic word is not evidence (FR-5.7, nothing invented);
-- 3. each lane keeps its top $8; rank -> RRF score weight/(k + rank);
-- 4. cap_rank prepares the diversity caps (<= 3 episodes per actor, <= 5 code hits per path).
PREPARE akw_fuse AS INSERT INTO _fused
WITH d AS (  -- a skill's name and a chunk's path are read from the stable id
    SELECT h.lane, h.lex, h.bits, doc.doc_id, doc.doc_key, doc.episode_id, doc.actor_id,
           doc.workspace_id, doc.time, doc.outcome,
           CASE WHEN h.lane = 'episodes' AND doc.episode_id IS NOT NULL THEN doc.episode_id
                WHEN h.lane = 'skills' THEN split_part(doc.doc_key, ':', 3)   -- skill:<root>:<name>[:…]
                ELSE doc.doc_key END AS grp,
           CASE WHEN h.lane = 'code' THEN regexp_replace(doc.doc_key, ':[0-9]+$', '')  -- chunk:<ws>:<path>
                ELSE doc.doc_key END AS cap_key
    FROM _hits h JOIN _docs doc USING (doc_id)
),
grouped AS (
    SELECT *,
           bit_or(bits) OVER (PARTITION BY lane, grp) AS grp_bits,
           row_number() OVER (PARTITION BY lane, grp ORDER BY lex DESC, doc_id) AS grp_pos
    FROM d
),
matched AS (
    SELECT g.lane, g.doc_id, coalesce(sum(gr.weight), 0) / $4::DOUBLE AS coverage, count(gr.mask) AS groups_matched
    FROM grouped g LEFT JOIN _groups gr ON (g.grp_bits & gr.mask) <> 0
    WHERE g.grp_pos = 1
    GROUP BY g.lane, g.doc_id
),
covered AS (
    SELECT g.*, m.coverage, m.groups_matched
    FROM grouped g JOIN matched m USING (lane, doc_id)
),
ranked AS (
    SELECT *, lex * (0.2 + 0.8 * coverage) AS relevance,
           row_number() OVER (PARTITION BY lane ORDER BY lex * (0.2 + 0.8 * coverage) DESC, doc_id) AS lane_rank
    FROM covered
    WHERE coverage >= $5::DOUBLE AND (SELECT max(coverage) FROM covered) >= $6::DOUBLE
      AND (SELECT max(groups_matched) FROM covered) >= $7::BIGINT
),
scored AS (
    SELECT *,
           (CASE lane WHEN 'episodes' THEN $1::DOUBLE WHEN 'code' THEN $2::DOUBLE WHEN 'skills' THEN $3::DOUBLE ELSE 0 END)
               / ($9::DOUBLE + lane_rank) AS rrf,
           relevance / max(relevance) OVER (PARTITION BY lane) AS rel,
           CASE lane WHEN 'episodes' THEN 0 WHEN 'code' THEN 1 ELSE 2 END AS lane_priority
    FROM ranked
    WHERE lane_rank <= $8::BIGINT
)
SELECT lane, lex, bits, doc_id, doc_key, episode_id, actor_id, workspace_id, time, outcome, grp, cap_key, grp_bits,
       coverage, groups_matched, relevance, lane_rank, rrf, rel, lane_priority,
       row_number() OVER (
           PARTITION BY lane, CASE lane WHEN 'episodes' THEN coalesce(actor_id, doc_key) ELSE cap_key END
           ORDER BY rrf DESC, doc_id) AS cap_rank
FROM scored;
