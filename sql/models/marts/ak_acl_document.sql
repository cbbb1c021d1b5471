-- Access control: the rights each searchable document is seen by (one row per document and right;
-- any one suffices). DSH episodes: their session's registry workspace (ak_acl_session); AutoClaw
-- episodes and memories: their account; code: its workspace; skills: their root, and the workspace
-- or account the root belongs to. Actor profiles (lane actors) carry no right of their own: a
-- principal sees an actor only when it sees every episode document of it (warehouse/search/access.py).
-- A document without a row here is seen by nobody under access control (fail closed).
-- col: grant_kind: workspace | autoclaw_account | skills_root
-- col: grant_key: a workspace id, an account or a skill root's path
-- unique: doc_id, grant_kind, grant_key
-- not_null: doc_id, lane, source, grant_kind, grant_key
-- accepted_values: grant_kind: workspace, autoclaw_account, skills_root
WITH docs AS (
    SELECT doc_id, doc_key, lane, source, session_id, account, workspace_id FROM {{ ref('ak_document') }}
),
dsh AS (
    SELECT d.doc_id, d.lane, d.source, s.grant_kind, s.grant_key
    FROM docs d JOIN {{ ref('ak_acl_session') }} s ON s.source = 'harness' AND s.session_id = d.session_id
    WHERE d.lane = 'episodes' AND d.source = 'harness'
),
ac AS (
    SELECT doc_id, lane, source, 'autoclaw_account' AS grant_kind, account AS grant_key
    FROM docs WHERE lane = 'episodes' AND source = 'autoclaw' AND account IS NOT NULL
),
code AS (
    SELECT doc_id, lane, source, 'workspace', workspace_id FROM docs
    WHERE lane = 'code' AND workspace_id IS NOT NULL
),
skill_rights AS (
    SELECT d.doc_id, d.lane, d.source, unnest([
               {'k': 'skills_root', 'v': s.root_path},
               {'k': 'workspace', 'v': s.workspace_id},
               {'k': 'autoclaw_account', 'v': s.account}]) AS r
    FROM docs d JOIN {{ ref('stg_skills') }} s ON s.skill_id = d.doc_key
    WHERE d.lane = 'skills'
),
skills AS (
    SELECT doc_id, lane, source, r.k, r.v FROM skill_rights WHERE r.v IS NOT NULL
),
rights AS (
    SELECT * FROM dsh UNION ALL SELECT * FROM ac UNION ALL SELECT * FROM code UNION ALL SELECT * FROM skills
)
SELECT DISTINCT doc_id, lane, source, grant_kind, grant_key FROM rights
ORDER BY doc_id, grant_kind, grant_key
