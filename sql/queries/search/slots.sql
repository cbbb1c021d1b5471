-- 5. Diversity caps (<= 3 episodes per actor, <= 5 code hits per path, one item per skill) and
--    `limit` ($4) items in all: each lane first gets its quota ($1..$3 for episodes, code, skills:
--    its share of the routing weights, at least one), the remaining slots follow the fused order;
--    stable order (score desc, lane_priority, time desc, id asc). Prepared once per cursor. vec: the
--    item's best similarity (NULL with the semantic side off).
PREPARE akw_slots AS
WITH c AS (
    SELECT *, row_number() OVER (PARTITION BY lane ORDER BY rrf DESC, lane_priority, time DESC NULLS LAST, doc_key)
              AS pos
    FROM _fused
    WHERE cap_rank <= CASE lane WHEN 'episodes' THEN 3 WHEN 'code' THEN 5 ELSE 1 END
),
slots AS (
    SELECT *, row_number() OVER (
                  ORDER BY pos <= (CASE lane WHEN 'episodes' THEN $1::BIGINT WHEN 'code' THEN $2::BIGINT WHEN 'skills' THEN $3::BIGINT
                                             ELSE 0 END) DESC,
                           rrf DESC, lane_priority, time DESC NULLS LAST, doc_key) AS slot
    FROM c
)
SELECT lane, doc_id, doc_key, rrf, rel, coverage, lane_rank, evidence, actor_id, vec
FROM slots
WHERE slot <= $4::BIGINT
ORDER BY rrf DESC, lane_priority, time DESC NULLS LAST, doc_key;
