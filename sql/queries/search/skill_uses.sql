-- Skills used by the episodes that answer a search (issue 24: "which skill did the agent use while doing X"):
-- {episode_ids} = the best episodes-lane hits' doc ids; their documents' `skills` are the names ak_skill_use
-- records. Each name's live skill documents (lane skills, `title` = the skill's name) come back with the
-- episode that used it, held to the lane's request filters and the principal's view ({where}: a trusted
-- predicate on `d`, or `true`), so a skill that shares no word with the question is nominated by its use.
WITH used AS (
    SELECT doc_id AS episode_doc, unnest(skills) AS name
    FROM ak_document
    WHERE doc_id IN ({episode_ids}) AND len(skills) > 0
),
skill_docs AS (
    SELECT d.doc_id, d.title AS name
    FROM ak_document AS d
    WHERE d.lane = 'skills' AND d.kind = 'skill' AND {where}
)
SELECT s.doc_id AS skill_doc, u.episode_doc
FROM used AS u
JOIN skill_docs AS s USING (name)
ORDER BY s.doc_id, u.episode_doc
