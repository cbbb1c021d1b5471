-- Every skill (live or removed) one principal may see: its root, or the workspace or account the root
-- belongs to, is among its resolved rights ($1 workspace ids, $2 accounts, $3 root paths).
SELECT skill_id FROM stg_skills
WHERE list_contains($3::VARCHAR[], root_path) OR list_contains($1::VARCHAR[], workspace_id)
   OR list_contains($2::VARCHAR[], account)
ORDER BY skill_id;
