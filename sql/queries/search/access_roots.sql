-- The skill roots a principal's `skills_roots` values may name (path or kind), once per generation.
SELECT root_path, root_kind FROM ak_acl_skill_root ORDER BY root_path;
