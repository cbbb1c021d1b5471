-- Files that ship with a skill: listed with size and hash, content never embedded.
SELECT DISTINCT skill_id, rel_path, size, sha256, is_binary FROM {{ lake('skills', 'skill_resources') }}
