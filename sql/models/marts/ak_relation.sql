-- Knowledge graph edges (spec FR-4): actor—did→episode, actor—participated→episode,
-- episode—used→skill, episode—produced→artifact, episode—about→topic, skill—related→skill.
-- col: weight: number of observations behind the edge
-- unique: rel, src_id, dst_id
-- not_null: src_kind, src_id, rel, dst_kind, dst_id
-- accepted_values: rel: did, participated, used, produced, about, related
-- accepted_values: src_kind: actor, episode, skill
-- accepted_values: dst_kind: episode, skill, artifact, topic
WITH did AS (
    SELECT 'actor' AS src_kind, actor_id AS src_id, 'did' AS rel, 'episode' AS dst_kind, episode_id AS dst_id, 1 AS weight
    FROM {{ ref('ak_episode') }} WHERE actor_id IS NOT NULL
),
participated AS (  -- only runs that are episodes: a run of a deleted session is no evidence (akw quality)
    SELECT 'actor', 'actor:autoclaw:agent:' || p.account || ':' || p.agent_id, 'participated', 'episode',
           e.episode_id, count(*)
    FROM {{ ref('stg_ac_participations') }} p
    JOIN {{ ref('ak_episode') }} e ON e.episode_id = 'episode:autoclaw:' || p.account || ':' || p.run_id
    GROUP BY ALL
),
used AS (
    SELECT 'episode', episode_id, 'used', 'skill', coalesce(skill_id, 'skill-name:' || skill_name), count(*)
    FROM {{ ref('ak_skill_use') }} GROUP BY ALL
),
produced AS (
    SELECT 'episode', episode_id, 'produced', 'artifact', artifact_id, 1 FROM {{ ref('ak_artifact') }}
),
about AS (  -- topics = identifiers named in the episode's goal: hosts, IPs, paths
    SELECT 'episode', episode_id, 'about', 'topic', 'topic:' || lower(t), count(*)
    FROM (SELECT episode_id,
                 unnest(regexp_extract_all(goal_text,
                     '(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.(?:ru|com|net|org|io|internal|local)|/(?:[\w.-]+/)+[\w.-]+)'))
                     AS t
          FROM (SELECT episode_id, goal_text FROM {{ ref('int_dsh_episodes') }}
                UNION ALL SELECT episode_id, goal_text FROM {{ ref('int_ac_episodes') }}))
    GROUP BY ALL
),
related AS (  -- skills used together in one episode
    SELECT 'skill', a.skill_id, 'related', 'skill', b.skill_id, count(DISTINCT a.episode_id)
    FROM {{ ref('ak_skill_use') }} a JOIN {{ ref('ak_skill_use') }} b
      ON a.episode_id = b.episode_id AND a.skill_id < b.skill_id
    GROUP BY ALL
)
SELECT * FROM (
    SELECT * FROM did UNION ALL SELECT * FROM participated UNION ALL SELECT * FROM used
    UNION ALL SELECT * FROM produced UNION ALL SELECT * FROM about UNION ALL SELECT * FROM related
)
ORDER BY rel, src_id, dst_id
