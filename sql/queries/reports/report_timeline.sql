-- `akw report`: episodes per UTC day and outcome, for the timeline (counts only, no text).
SELECT CAST(started_at AT TIME ZONE 'UTC' AS DATE) AS day,
       coalesce(outcome, 'unknown') AS outcome,
       count(*) AS episodes
FROM ak_episode
WHERE started_at IS NOT NULL
GROUP BY ALL
ORDER BY day, outcome
