-- `akw report` with reports.snippets: the newest episodes with their titles (text redacted at extract).
SELECT episode_id, title, outcome, started_at
FROM ak_episode
ORDER BY started_at DESC NULLS LAST, episode_id
LIMIT 10
