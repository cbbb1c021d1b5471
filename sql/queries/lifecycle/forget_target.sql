-- What one `akw forget` target covers in the published generation: $1 kind (session | actor | skill |
-- workspace), $2 the id. One row per (what, value): `session` ids to tombstone (a forgotten session
-- takes its subagent and team-member sessions, whose actor ids carry its id), `actor`, `skill` and
-- `workspace` ids (and a workspace's path). An actor takes the sessions of its episodes.
WITH dsh AS (SELECT session_id, subagent_parent, lead_session_id, actor_id, workspace_id, workspace_path
             FROM stg_dsh_sessions),
sessions AS (
    SELECT session_id FROM dsh WHERE $1 = 'session' AND $2 IN (session_id, subagent_parent, lead_session_id)
    UNION SELECT session_id FROM ak_episode WHERE $1 = 'session' AND session_id = $2
    UNION SELECT session_id FROM stg_ac_sessions WHERE $1 = 'session' AND session_id = $2
    UNION SELECT session_id FROM ak_episode WHERE $1 = 'actor' AND actor_id = $2 AND session_id IS NOT NULL
    UNION SELECT session_id FROM dsh WHERE $1 = 'actor' AND actor_id = $2
    UNION SELECT session_id FROM ak_episode
          WHERE $1 = 'workspace' AND $2 IN (workspace_id, workspace_path) AND session_id IS NOT NULL
),
actors AS (
    SELECT actor_id AS value FROM ak_actor WHERE $1 = 'actor' AND actor_id = $2
    UNION SELECT agent_id FROM ak_actor WHERE $1 = 'actor' AND actor_id = $2 AND agent_id IS NOT NULL
),
skills AS (SELECT skill_id AS value FROM ak_skill WHERE $1 = 'skill' AND $2 IN (skill_id, name)),
workspaces AS (
    SELECT workspace_id AS value FROM ak_document_workspace WHERE $1 = 'workspace' AND $2 IN (workspace_id, workspace_path)
    UNION SELECT workspace_path FROM ak_document_workspace
          WHERE $1 = 'workspace' AND $2 IN (workspace_id, workspace_path) AND workspace_path IS NOT NULL
)
SELECT 'session' AS what, session_id AS value FROM sessions WHERE session_id IS NOT NULL
UNION ALL SELECT 'actor', value FROM actors
UNION ALL SELECT 'skill', value FROM skills
UNION ALL SELECT 'workspace', value FROM workspaces
ORDER BY what, value
