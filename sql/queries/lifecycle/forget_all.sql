-- `akw forget all`: every id the index knows, as forget_target.sql names them (what, value).
SELECT 'session' AS what, session_id AS value FROM stg_dsh_sessions
UNION SELECT 'session', session_id FROM ak_episode WHERE session_id IS NOT NULL
UNION SELECT 'session', session_id FROM stg_ac_sessions WHERE session_id IS NOT NULL
UNION SELECT 'session', source_session_id FROM ak_memory WHERE source_session_id IS NOT NULL
UNION SELECT 'actor', actor_id FROM ak_actor
UNION SELECT 'actor', agent_id FROM ak_actor WHERE agent_id IS NOT NULL
UNION SELECT 'skill', skill_id FROM ak_skill
UNION SELECT 'workspace', workspace_id FROM ak_document_workspace WHERE workspace_id IS NOT NULL
ORDER BY what, value
