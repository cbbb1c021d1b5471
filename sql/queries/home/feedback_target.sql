-- Whether a result id names a row of its mart (docs/search.md "Ids"): one row if it does.
-- {id} = one dollar-quoted text literal (literals.text), never SQL.
SELECT 'actor' FROM ak_actor WHERE actor_id = {id}
UNION ALL SELECT 'episode' FROM ak_episode WHERE episode_id = {id}
UNION ALL SELECT 'memory' FROM ak_memory WHERE memory_key = {id}
UNION ALL SELECT 'skill' FROM ak_skill WHERE skill_id = {id}
UNION ALL SELECT lane FROM ak_document WHERE doc_key = {id} AND lane IN ('code', 'skills')
LIMIT 1;
