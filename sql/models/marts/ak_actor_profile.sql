-- Actor profile documents (ak_document lane actors) and the episode document each stands on, so
-- search can turn a profile match ("an agent that reviews database migrations") into evidence
-- the response returns: the actor's representative episode (contract KC-7; search reads this
-- table once per generation, warehouse/search/fusion.py `nominate`).
-- col: doc_id: the profile document (ak_document.doc_id, lane actors)
-- col: ref_doc_id: the representative episode's summary document (ak_document.doc_id, lane episodes)
-- col: ref_doc_key: its doc_key (ep:<session>:<seq>)
-- unique: doc_id
-- unique: actor_id
-- not_null: doc_id, actor_id, ref_doc_id, ref_doc_key
WITH profiles AS (
    SELECT doc_id, actor_id, 'ep:' || session_id || ':' || seq AS ref_doc_key
    FROM {{ ref('ak_document') }}
    WHERE lane = 'actors'
),
episode_docs AS (
    SELECT doc_id, doc_key FROM {{ ref('ak_document') }}
    WHERE lane = 'episodes' AND doc_key IN (SELECT ref_doc_key FROM profiles)
)
SELECT p.doc_id, p.actor_id, e.doc_id AS ref_doc_id, p.ref_doc_key
FROM profiles p
JOIN episode_docs e ON e.doc_key = p.ref_doc_key
ORDER BY p.doc_id
