-- Fusion of per-lane lexical hits (contract 000 §7), in SQL.
-- Input: $lane, $doc_id, $lex, $bits = parallel lists (bound parameters) of each lane's top hits,
-- where bit i of bits says the
-- document matched query term i; query terms come in groups (a term and its RU/EN equivalents):
-- {group_masks} = the bits of each group, {group_weights} = its idf (unknown terms weigh much:
-- a query about something never indexed covers little).
-- 1. coverage = idf-weighted share of the query's terms an item matches; the episodes lane keeps
--    one item per episode (its best event) and counts the terms matched anywhere in the episode;
--    the skills lane keeps one item per skill name (one skill deployed in several roots);
-- 2. relevance = BM25 × (0.2 + 0.8·coverage); items below {min_coverage} are not answers, and
--    when even the best item covers less than {min_best_coverage} of the query there is no
--    answer at all; nor when no item matches two of the query's terms (of three or more): a lone
--    generic word is not evidence (FR-5.7, nothing invented);
-- 3. each lane keeps its top {k_lane}; rank -> RRF score weight/(k + rank);
-- 4. diversity caps: <= 3 episodes per actor, <= 5 code hits per path;
-- 5. stable order (score desc, lane_priority, time desc, id asc).
CREATE OR REPLACE TEMP TABLE _fused AS
WITH h AS (
    SELECT unnest($lane) AS lane, unnest($doc_id)::INTEGER AS doc_id, unnest($lex)::DOUBLE AS lex,
           unnest($bits)::BIGINT AS bits
),
d AS (  -- only cheap columns: a skill's name and a chunk's path are read from the stable id
    SELECT h.lane, h.lex, h.bits, doc.doc_id, doc.doc_key, doc.episode_id, doc.actor_id,
           doc.workspace_id, doc.time, doc.outcome,
           CASE WHEN h.lane = 'episodes' AND doc.episode_id IS NOT NULL THEN doc.episode_id
                WHEN h.lane = 'skills' THEN split_part(doc.doc_key, ':', 3)   -- skill:<root>:<name>[:…]
                ELSE doc.doc_key END AS grp,
           CASE WHEN h.lane = 'code' THEN regexp_replace(doc.doc_key, ':[0-9]+$', '')  -- chunk:<ws>:<path>
                ELSE doc.doc_key END AS cap_key
    FROM h
    JOIN (SELECT doc_id, doc_key, episode_id, actor_id, workspace_id, time, outcome
          FROM ak_document WHERE doc_id IN ({doc_ids})) AS doc USING (doc_id)
),
grouped AS (
    SELECT *,
           bit_or(bits) OVER (PARTITION BY lane, grp) AS grp_bits,
           row_number() OVER (PARTITION BY lane, grp ORDER BY lex DESC, doc_id) AS grp_pos
    FROM d
),
covered AS (
    SELECT *,
           list_sum(list_transform(range({n_groups}),
                    lambda i: CASE WHEN (grp_bits & ({group_masks})[i + 1]) <> 0 THEN ({group_weights})[i + 1]
                                   ELSE 0.0 END))
               / {total_weight} AS coverage,
           len(list_filter(range({n_groups}), lambda i: (grp_bits & ({group_masks})[i + 1]) <> 0)) AS groups_matched
    FROM grouped WHERE grp_pos = 1
),
ranked AS (
    SELECT *, lex * (0.2 + 0.8 * coverage) AS relevance,
           row_number() OVER (PARTITION BY lane ORDER BY lex * (0.2 + 0.8 * coverage) DESC, doc_id) AS lane_rank
    FROM covered
    WHERE coverage >= {min_coverage} AND (SELECT max(coverage) FROM covered) >= {min_best_coverage}
      AND (SELECT max(groups_matched) FROM covered) >= {min_groups}
),
scored AS (
    SELECT *,
           (CASE lane {weight_cases} ELSE 0 END) / ({rrf_k} + lane_rank) AS rrf,
           relevance / max(relevance) OVER (PARTITION BY lane) AS rel,
           CASE lane WHEN 'episodes' THEN 0 WHEN 'code' THEN 1 ELSE 2 END AS lane_priority
    FROM ranked
    WHERE lane_rank <= {k_lane}
)
SELECT *,
       row_number() OVER (
           PARTITION BY lane, CASE lane WHEN 'episodes' THEN coalesce(actor_id, doc_key) ELSE cap_key END
           ORDER BY rrf DESC, doc_id) AS cap_rank
FROM scored;

-- 6. `limit` items in all: each lane first gets its quota (share of the routing weights, at
--    least one), the remaining slots follow the fused order.
WITH c AS (
    SELECT *, row_number() OVER (PARTITION BY lane ORDER BY rrf DESC, lane_priority, time DESC NULLS LAST, doc_key)
              AS pos
    FROM _fused
    WHERE cap_rank <= CASE lane WHEN 'episodes' THEN 3 WHEN 'code' THEN 5 ELSE 1 END
),
slots AS (
    SELECT *, row_number() OVER (ORDER BY pos <= (CASE lane {quota_cases} ELSE 0 END) DESC, rrf DESC, lane_priority,
                                          time DESC NULLS LAST, doc_key) AS slot
    FROM c
)
SELECT lane, doc_id, doc_key, rrf, rel, coverage, lane_rank, actor_id
FROM slots
WHERE slot <= {limit}
ORDER BY rrf DESC, lane_priority, time DESC NULLS LAST, doc_key;
