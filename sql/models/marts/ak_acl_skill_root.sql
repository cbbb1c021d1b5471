-- Access control: the skill roots found at extract time (`access.principals.<email>.skills_roots` names
-- a root by its path or its kind). A workspace root is also seen with its workspace's right, an
-- AutoClaw root with its account's.
-- col: skills: skills found in the root (live or removed)
-- unique: root_path
-- not_null: root_path, root_kind
WITH roots AS (
    SELECT root_path, any_value(root_kind) AS root_kind, any_value(workspace_id) AS workspace_id,
           any_value(account) AS account, count(*) AS skills
    FROM {{ ref('stg_skills') }}
    WHERE root_path IS NOT NULL
    GROUP BY root_path
)
SELECT * FROM roots ORDER BY root_path
