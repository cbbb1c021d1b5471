-- The DSH workspace registry (workspace.json).
-- unique: workspace_id
SELECT DISTINCT ON (workspace_id) workspace_id, path, title, archived, pinned, session_ids
FROM {{ lake('dsh', 'workspaces') }}
ORDER BY workspace_id
