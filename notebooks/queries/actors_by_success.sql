-- Actors by success rate (actors with at least one finished episode)
SELECT display_name, kind, source, episodes, successes, failures, round(success_rate, 3) AS success_rate, actor_id
FROM ak_actor
WHERE episodes > 0
ORDER BY success_rate DESC, episodes DESC, actor_id
LIMIT 20
