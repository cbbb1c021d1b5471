-- Access control: the workspaces of the DSH registry (workspace.json) as captured at extract time,
-- with the names `access.principals.<email>.workspaces` may use for them (docs/access.md).
-- col: name: the workspace folder's name (last path segment)
-- col: sessions: sessions the registry lists for the workspace (they inherit its rights)
-- unique: workspace_id
-- not_null: workspace_id
WITH registry AS (
    SELECT workspace_id, path, title, archived, session_ids FROM {{ ref('stg_dsh_workspaces') }}
),
named AS (
    SELECT workspace_id, path, regexp_extract(rtrim(path, '/'), '[^/]+$') AS name, title,
           coalesce(archived, false) AS archived, len(coalesce(session_ids, [])) AS sessions
    FROM registry
)
SELECT * FROM named
ORDER BY workspace_id
