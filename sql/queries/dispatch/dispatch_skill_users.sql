-- knowledge_dispatch KD-3: who used the skills $1 (names) most; ties: newest use, then actor id.
SELECT u.actor_id, count(*) AS uses, max(u.time) AS last_used
FROM ak_skill_use u JOIN ak_actor a USING (actor_id)
WHERE u.skill_name IN (SELECT unnest($1::VARCHAR[]))
GROUP BY u.actor_id
ORDER BY uses DESC, last_used DESC NULLS LAST, u.actor_id
