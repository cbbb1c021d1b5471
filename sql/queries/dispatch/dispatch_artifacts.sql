-- knowledge_dispatch: artifacts of the episodes $1, newest first.
SELECT path, kind, episode_id FROM ak_artifact
WHERE episode_id IN (SELECT unnest($1::VARCHAR[]))
ORDER BY time DESC NULLS LAST, artifact_id
LIMIT $2
