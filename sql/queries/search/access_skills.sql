-- Every skill (live or removed) one principal may see: its root, or the workspace or account the root
-- belongs to, is among its resolved rights ($1 workspace ids, $2 accounts, $3 root paths), and its writer
-- among its writers ($4; NULL: every writer; in a local build every skill is $5's, the local writer).
SELECT skill_id FROM stg_skills
WHERE (list_contains($3::VARCHAR[], root_path) OR list_contains($1::VARCHAR[], workspace_id)
       OR list_contains($2::VARCHAR[], account))
  AND ($4::VARCHAR[] IS NULL
       OR skill_id IN (SELECT id FROM ak_writer_scope WHERE kind = 'skill' AND list_contains($4::VARCHAR[], writer_id))
       OR (list_contains($4::VARCHAR[], $5::VARCHAR) AND NOT EXISTS (SELECT 1 FROM ak_writer_scope)))
ORDER BY skill_id;
