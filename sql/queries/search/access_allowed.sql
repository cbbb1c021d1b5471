-- The documents one principal may see (the body of its per-cursor temp table, warehouse/search/access.py):
-- every document holding one of its resolved rights ($1 workspace ids, $2 AutoClaw accounts, $3
-- skill root paths; ak_acl_document) AND written by one of its writers ($4; NULL: every writer; a
-- local build's documents are all $5's, the local writer: ak_acl_writer is empty there), plus the
-- profile documents (lane actors) of the actors whose every episode document it sees. Lane queries
-- join this set before ranking.
WITH by_writer AS (
    SELECT doc_id FROM ak_acl_writer WHERE list_contains($4::VARCHAR[], writer_id)
    UNION ALL
    SELECT doc_id FROM ak_document
    WHERE list_contains($4::VARCHAR[], $5::VARCHAR) AND NOT EXISTS (SELECT 1 FROM ak_writer_scope)
),
granted AS (
    SELECT DISTINCT doc_id FROM ak_acl_document
    WHERE ((grant_kind = 'workspace' AND list_contains($1::VARCHAR[], grant_key))
           OR (grant_kind = 'autoclaw_account' AND list_contains($2::VARCHAR[], grant_key))
           OR (grant_kind = 'skills_root' AND list_contains($3::VARCHAR[], grant_key)))
      AND ($4::VARCHAR[] IS NULL OR doc_id IN (SELECT doc_id FROM by_writer))
),
actor_docs AS (
    SELECT d.actor_id, g.doc_id IS NOT NULL AS seen
    FROM ak_document d LEFT JOIN granted g USING (doc_id)
    WHERE d.lane = 'episodes' AND d.actor_id IS NOT NULL
),
whole_actors AS (
    SELECT actor_id FROM actor_docs GROUP BY actor_id HAVING bool_and(seen)
),
profiles AS (
    SELECT d.doc_id FROM ak_document d JOIN whole_actors USING (actor_id) WHERE d.lane = 'actors'
)
SELECT doc_id FROM granted UNION ALL SELECT doc_id FROM profiles ORDER BY doc_id
