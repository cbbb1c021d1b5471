-- Every skill found in every root (DSH home, workspace .dsh/.agents, extra dirs, AutoClaw), live or removed.
-- unique: skill_id
-- not_null: skill_id
SELECT * FROM {{ lake('skills', 'skills') }}
QUALIFY row_number() OVER (PARTITION BY skill_id ORDER BY revision DESC) = 1
