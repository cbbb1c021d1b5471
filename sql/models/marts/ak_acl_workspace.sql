-- Access control: the workspaces of the DSH registry (workspace.json) as captured at extract time, and
-- the working folders of Claude Code and Codex sessions no registry workspace holds (workspace_id = the
-- folder's path), with the names `access.principals.<email>.workspaces` may use for them (docs/access.md).
-- col: name: the workspace folder's name (last path segment)
-- col: sessions: sessions the registry lists for the workspace (they inherit its rights)
-- unique: workspace_id
-- not_null: workspace_id
WITH dsh AS (
    SELECT workspace_id, path, title, archived, session_ids FROM {{ ref('stg_dsh_workspaces') }}
),
tool AS (  -- a tool session's cwd outside every registry workspace is a workspace of its own
    SELECT rtrim(cwd, '/') AS workspace_id, rtrim(cwd, '/') AS path, CAST(NULL AS VARCHAR) AS title,
           false AS archived, list(DISTINCT session_id ORDER BY session_id) AS session_ids
    FROM {{ ref('stg_dsh_sessions') }}
    WHERE origin IN ('claude_code', 'codex') AND cwd IS NOT NULL
      AND rtrim(cwd, '/') NOT IN (SELECT rtrim(path, '/') FROM dsh WHERE path IS NOT NULL)
      AND rtrim(cwd, '/') NOT IN (SELECT workspace_id FROM dsh)
    GROUP BY ALL
),
registry AS (SELECT * FROM dsh UNION ALL SELECT * FROM tool),
named AS (
    SELECT workspace_id, path, regexp_extract(rtrim(path, '/'), '[^/]+$') AS name, title,
           coalesce(archived, false) AS archived, len(coalesce(session_ids, [])) AS sessions
    FROM registry
)
SELECT * FROM named
ORDER BY workspace_id
