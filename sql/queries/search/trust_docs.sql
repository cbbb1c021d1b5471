-- The documents the trust prior applies to and their trust (docs/search.md "Trust prior"): run by the
-- search engine when it opens a generation or ak_trust changes, never per search.
-- {scores} = VALUES rows (entity_id, trust) of literals, only entities whose trust is not neutral (0.5).
-- A document takes its item's trust (the id a response gives it, as item_details.sql names it: an
-- episodes-lane event its episode's, a memory its memory_key's, a chunk or skill its own doc_key's).
WITH tr(entity_id, t) AS (VALUES {scores})
SELECT d.doc_id, tr.t
FROM ak_document d
JOIN tr ON tr.entity_id = CASE WHEN d.lane = 'episodes' AND d.episode_id IS NOT NULL THEN d.episode_id
                               WHEN d.kind = 'memory' THEN 'memory:autoclaw:' || substr(d.doc_key, 5)
                               ELSE d.doc_key END
WHERE d.lane IN ('episodes', 'code', 'skills')
ORDER BY d.doc_id;
