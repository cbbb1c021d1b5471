-- knowledge_dispatch: the episodes in which actor $1 used one of the skills $2, newest first.
SELECT u.episode_id, u.session_id, u.seq, u.time, e.outcome, e.tool_errors, u.skill_name, e.actor_id
FROM ak_skill_use u JOIN ak_episode e USING (episode_id)
WHERE u.actor_id = $1 AND u.skill_name IN (SELECT unnest($2::VARCHAR[]))
ORDER BY u.time DESC NULLS LAST, u.skill_use_id
LIMIT 10
