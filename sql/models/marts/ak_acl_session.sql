-- Access control: every session and the right it is seen by, captured at extract time. A DSH
-- session inherits the rights of the registry workspace that lists it (a session no workspace
-- lists is seen by nobody under access control); an AutoClaw session belongs to its account.
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
sessions AS (SELECT * FROM dsh UNION ALL SELECT * FROM ac)
SELECT DISTINCT * FROM sessions WHERE session_id IS NOT NULL AND grant_key IS NOT NULL
ORDER BY source, session_id, grant_key
