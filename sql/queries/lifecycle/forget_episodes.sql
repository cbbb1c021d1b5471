-- Episodes a forget target covers ($1 session ids, $2 actor ids): their ids reach the forget hooks
-- (feedback may name an episode) and the relation count.
SELECT episode_id FROM ak_episode WHERE list_contains($1, session_id) OR list_contains($2, actor_id) ORDER BY 1
