-- The live skill documents by name (lane skills, `title` = the skill's name), read once per generation
-- (warehouse/search/skill_uses.py): what a skill an episode used is nominated as.
SELECT title AS name, list(doc_id ORDER BY doc_id) AS doc_ids
FROM ak_document
WHERE lane = 'skills' AND kind = 'skill' AND title IS NOT NULL
GROUP BY title
ORDER BY title
