-- What one principal sees, besides its documents ({allow}: its temp table): the actors whose every
-- episode document it sees (kind 'actor'), the episodes and sessions of its documents, the code chunks,
-- the workspace numbers (ak_document.ws_no) a workspace filter of its may name.
-- Cards and fusion's actor rows are held to these sets (warehouse/search/access.py).
WITH mine AS (
    SELECT d.* FROM ak_document d WHERE d.doc_id IN (SELECT doc_id FROM {allow})
),
actors AS (
    SELECT d.actor_id AS id FROM ak_document d
    WHERE d.lane = 'episodes' AND d.actor_id IS NOT NULL
    GROUP BY d.actor_id HAVING bool_and(d.doc_id IN (SELECT doc_id FROM {allow}))
)
SELECT 'actor' AS kind, id FROM actors
UNION ALL SELECT DISTINCT 'episode', episode_id FROM mine WHERE lane = 'episodes' AND episode_id IS NOT NULL
UNION ALL SELECT DISTINCT 'session', session_id FROM mine WHERE lane = 'episodes' AND session_id IS NOT NULL
UNION ALL SELECT 'chunk', doc_key FROM mine WHERE lane = 'code'
UNION ALL SELECT DISTINCT 'ws_no', CAST(ws_no AS VARCHAR) FROM mine WHERE ws_no IS NOT NULL
UNION ALL SELECT 'lane:' || lane, CAST(count(*) AS VARCHAR) FROM mine GROUP BY lane;
