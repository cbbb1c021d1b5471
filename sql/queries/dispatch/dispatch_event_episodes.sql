-- knowledge_dispatch: the episode (outcome, tool errors, actor) of each (session_id $1[i], seq $2[i]) event.
SELECT q.session_id, q.seq, e.episode_id, e.outcome, e.tool_errors, e.actor_id
FROM (SELECT unnest($1::VARCHAR[]) AS session_id, unnest($2::BIGINT[]) AS seq) q
JOIN ak_event ev ON ev.session_id = q.session_id AND ev.seq = q.seq
JOIN ak_episode e ON e.episode_id = ev.episode_id
QUALIFY row_number() OVER (PARTITION BY q.session_id, q.seq ORDER BY e.episode_id) = 1
ORDER BY q.session_id, q.seq
