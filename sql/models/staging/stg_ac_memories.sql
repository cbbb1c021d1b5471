-- AutoClaw memory assets, newest version per (account, memory_id), with the supersedes chain resolved.
-- col: is_current: false when another memory supersedes this one
-- unique: account, memory_id
WITH m AS (
    SELECT * FROM {{ lake('autoclaw', 'ac_memories') }}
    QUALIFY row_number() OVER (PARTITION BY account, memory_id ORDER BY extracted_seq DESC) = 1
)
SELECT m.*,
       s.memory_id AS superseded_by,
       s.memory_id IS NULL AND coalesce(m.lifecycle, 'active') NOT IN ('archived', 'deleted', 'superseded') AS is_current
FROM m
LEFT JOIN (SELECT account, supersedes_memory_id, min(memory_id) AS memory_id FROM m
           WHERE supersedes_memory_id IS NOT NULL GROUP BY ALL) s
  ON s.account = m.account AND s.supersedes_memory_id = m.memory_id
