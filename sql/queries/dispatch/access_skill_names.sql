-- The names of the skills one principal may see ($1: its visible skill ids, access.View.skills): a
-- dispatch plan names, suggests and looks up users of these skills only.
SELECT DISTINCT name FROM stg_skills WHERE list_contains($1::VARCHAR[], skill_id) ORDER BY name;
