-- The documents feedback applies to and their score (docs/search.md "Feedback"): run by the search
-- engine when it opens a generation or the feedback log changes, never per search.
-- {scores} = VALUES rows (key, s) of literals: a result id (a memory by its document key) and its
-- score in (-1, 1). A document's score is its item's (an episode event: its episode's; a memory, a
-- chunk, a skill document: its own key) plus, for an episodes-lane document, its actor's, clamped.
WITH fb(key, s) AS (VALUES {scores})
SELECT d.doc_id, greatest(-1.0, least(1.0, coalesce(fi.s, 0) + coalesce(fa.s, 0))) AS s
FROM ak_document d
LEFT JOIN fb fi ON fi.key = CASE WHEN d.lane = 'episodes' AND d.episode_id IS NOT NULL THEN d.episode_id
                                 ELSE d.doc_key END
LEFT JOIN fb fa ON d.lane = 'episodes' AND fa.key = d.actor_id
WHERE d.lane IN ('episodes', 'code', 'skills') AND (fi.s IS NOT NULL OR fa.s IS NOT NULL)
ORDER BY d.doc_id;
