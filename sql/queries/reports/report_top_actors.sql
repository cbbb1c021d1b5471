-- `akw report`: the actors who did the most episodes (names and counts only).
SELECT actor_id, display_name, kind, source, episodes, successes, failures, round(success_rate, 3) AS success_rate
FROM ak_actor
WHERE episodes > 0
ORDER BY episodes DESC, actor_id
LIMIT 10
