-- knowledge_dispatch: one live skill per name in $1 (the most used copy), with its total recorded uses.
SELECT name, path, content_hash, description, when_to_use, sum(uses) OVER (PARTITION BY name) AS total_uses
FROM ak_skill
WHERE status = 'live' AND name IN (SELECT unnest($1::VARCHAR[]))
QUALIFY row_number() OVER (PARTITION BY name ORDER BY uses DESC, skill_id) = 1
ORDER BY name
