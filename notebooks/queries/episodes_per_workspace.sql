-- Episodes per workspace and outcome
SELECT coalesce(workspace_id, '(none)') AS workspace, outcome, count(*) AS episodes
FROM ak_episode
GROUP BY ALL
ORDER BY workspace, outcome
