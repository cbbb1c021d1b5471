-- The SKILL.md file of each skill among a response's final items ($1: their skill ids), for the live check.
SELECT skill_id, path FROM stg_skills WHERE list_contains($1::VARCHAR[], skill_id);
