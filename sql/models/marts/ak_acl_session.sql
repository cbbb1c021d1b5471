-- Access control: every session and the right it is seen by, captured at extract time. A DSH
-- session inherits the rights of the registry workspace that lists it (a session no workspace
-- lists is seen by nobody under access control); an AutoClaw session belongs to its account; a Claude Code
-- or Codex session belongs to the workspace of its `cwd`: the registry workspace at that path, else the
-- folder itself (ak_acl_workspace lists it), so rights name it by path or folder name like any other.
-- col: grant_kind: workspace (DSH) | autoclaw_account (AutoClaw)
-- col: grant_key: the workspace id or the account
-- col: deleted: the AutoClaw session was deleted in the source (still indexed until retention)
-- unique: source, session_id, grant_key
-- not_null: source, session_id, grant_kind, grant_key
-- accepted_values: source: harness, autoclaw
-- accepted_values: grant_kind: workspace, autoclaw_account
WITH dsh AS (
    SELECT 'harness' AS source, unnest(session_ids) AS session_id, 'workspace' AS grant_kind,
           workspace_id AS grant_key, path AS workspace_path, false AS deleted
    FROM {{ ref('stg_dsh_workspaces') }}
),
ac AS (
    SELECT 'autoclaw', session_id, 'autoclaw_account', account, workspace, is_deleted
    FROM {{ ref('stg_ac_sessions') }}
),
registry AS (SELECT workspace_id, rtrim(path, '/') AS path FROM {{ ref('stg_dsh_workspaces') }} WHERE path IS NOT NULL),
tool AS (
    SELECT 'harness', s.session_id, 'workspace', coalesce(r.workspace_id, rtrim(s.cwd, '/')), s.cwd, false
    FROM {{ ref('stg_dsh_sessions') }} s
    LEFT JOIN registry r ON r.path = rtrim(s.cwd, '/')
    WHERE s.origin IN ('claude_code', 'codex') AND s.cwd IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY s.session_id ORDER BY r.workspace_id NULLS LAST) = 1
),
sessions AS (SELECT * FROM dsh UNION ALL SELECT * FROM ac UNION ALL SELECT * FROM tool)
SELECT DISTINCT * FROM sessions WHERE session_id IS NOT NULL AND grant_key IS NOT NULL
ORDER BY source, session_id, grant_key
