-- Every skill found in every root (DSH home, workspace .dsh/.agents, extra dirs, AutoClaw), live or removed.
-- unique: skill_id
-- not_null: skill_id
SELECT * FROM {{ lake('skills', 'skills') }}
-- ties (one skill id pushed by two writers of a team lake) break on the path and content: the same
-- snapshot always yields the same row
QUALIFY row_number() OVER (PARTITION BY skill_id ORDER BY revision DESC, path, content_hash) = 1
