-- Skills used by the episodes that answer a search (issue 24, warehouse/search/skill_uses.py): the skill
-- names (the ones ak_skill_use records) of the best episodes-lane hits, {episode_ids}: point lookups by doc_id.
SELECT doc_id AS episode_doc, unnest(skills) AS name
FROM ak_document
WHERE doc_id IN ({episode_ids}) AND len(skills) > 0
ORDER BY episode_doc, name
