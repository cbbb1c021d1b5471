-- Actors a forget target covers ($1 session ids, $2 actor ids): the owners of its episodes and the
-- session-bound actors (a root session, its subagents and team members carry the session id in
-- their actor id). Their ids reach the forget hooks: the access counter and feedback name actors.
SELECT DISTINCT actor_id FROM (
    SELECT actor_id FROM ak_episode WHERE list_contains($1::VARCHAR[], session_id) OR list_contains($2::VARCHAR[], actor_id)
    UNION ALL
    SELECT a.actor_id FROM ak_actor a, unnest($1::VARCHAR[]) AS s(session_id) WHERE contains(a.actor_id, s.session_id)
)
WHERE actor_id IS NOT NULL
ORDER BY 1
