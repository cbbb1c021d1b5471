-- Data-quality frame (warehouse/quality): every ak_relation edge with both ends resolved in the mart of
-- its kind (actor → ak_actor, episode → ak_episode, skill → ak_skill, artifact → ak_artifact; topics are
-- labels with no table of their own; `skill-name:<name>` is a used skill no root holds, by design).
WITH relations AS (SELECT * FROM ak_relation),
ids AS (
    SELECT 'actor' AS kind, actor_id AS id FROM ak_actor
    UNION ALL SELECT 'episode', episode_id FROM ak_episode
    UNION ALL SELECT 'skill', skill_id FROM ak_skill
    UNION ALL SELECT 'artifact', artifact_id FROM ak_artifact
),
checked AS (
    SELECT r.rel || ':' || r.src_id || '->' || r.dst_id AS key,
           r.rel, r.src_kind, r.dst_kind,
           s.id IS NOT NULL AS src_resolves,
           r.dst_kind = 'topic' OR (r.dst_kind = 'skill' AND r.dst_id LIKE 'skill-name:%')
               OR d.id IS NOT NULL AS dst_resolves
    FROM relations r
    LEFT JOIN ids s ON s.kind = r.src_kind AND s.id = r.src_id
    LEFT JOIN ids d ON d.kind = r.dst_kind AND d.id = r.dst_id
)
SELECT * FROM checked ORDER BY key
