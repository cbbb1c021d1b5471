-- Files presented as deliverables or changed in the workspace, per harness event (DSH, Claude Code, Codex).
WITH harness AS (
    SELECT session_id, seq, time, path, change, description FROM {{ lake('dsh', 'artifacts') }}
    UNION ALL BY NAME SELECT session_id, seq, time, path, change, description FROM {{ lake('claude_code', 'artifacts') }}
    UNION ALL BY NAME SELECT session_id, seq, time, path, change, description FROM {{ lake('codex', 'artifacts') }}
)
SELECT DISTINCT session_id, seq, time, path, change, description
FROM harness
