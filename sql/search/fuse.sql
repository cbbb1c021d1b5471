-- Fusion of per-lane lexical hits (contract 000 §7), in SQL.
-- Input: {hits} = a VALUES list (lane, doc_id, lex) of each lane's top hits (numbers and fixed lane names).
-- 1. the episodes lane keeps one item per episode (its best-matching event), the skills lane one
--    item per skill name (the same skill deployed in several roots is one answer);
-- 2. each lane keeps its top {k_lane}; rank -> RRF score weight/(k + rank);
-- 3. diversity caps: <= 3 episodes per actor, <= 5 code hits per path;
-- 4. stable order (score desc, lane_priority, time desc, id asc);
CREATE OR REPLACE TEMP TABLE _fused AS
WITH d AS (
    SELECT h.lane, h.lex, doc.* EXCLUDE (lane)
    FROM (VALUES {hits}) AS h(lane, doc_id, lex) JOIN ak_document doc ON doc.doc_id = h.doc_id
),
collapsed AS (
    SELECT * FROM d
    QUALIFY row_number() OVER (
        PARTITION BY lane, CASE WHEN lane = 'episodes' AND episode_id IS NOT NULL THEN episode_id
                                WHEN lane = 'skills' THEN title ELSE doc_key END
        ORDER BY lex DESC, doc_id) = 1
),
ranked AS (
    SELECT *, row_number() OVER (PARTITION BY lane ORDER BY lex DESC, doc_id) AS lane_rank FROM collapsed
),
scored AS (
    SELECT *,
           (CASE lane {weight_cases} ELSE 0 END) / ({rrf_k} + lane_rank) AS rrf,
           lex / max(lex) OVER (PARTITION BY lane) AS rel,
           CASE lane WHEN 'episodes' THEN 0 WHEN 'code' THEN 1 ELSE 2 END AS lane_priority
    FROM ranked
    WHERE lane_rank <= {k_lane}
)
SELECT *,
       row_number() OVER (
           PARTITION BY lane, CASE lane WHEN 'episodes' THEN coalesce(actor_id, doc_key)
                                        WHEN 'code' THEN coalesce(workspace_id, '') || ':' || path
                                        ELSE doc_key END
           ORDER BY rrf DESC, doc_id) AS cap_rank
FROM scored;

-- 5. `limit` items in all: each lane first gets its quota (share of the routing weights, at
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
SELECT lane, doc_id, doc_key, rrf, rel, lex, lane_rank, actor_id
FROM slots
WHERE slot <= {limit}
ORDER BY rrf DESC, lane_priority, time DESC NULLS LAST, doc_key;
