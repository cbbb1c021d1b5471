-- Who used these skills, newest first (at most 5 per skill); ids only, no text.
SELECT skill_id, actor_id, episode_id, uses
FROM (
    SELECT skill_id, actor_id, arg_max(episode_id, time) AS episode_id, count(*) AS uses, max(time) AS last_time
    FROM ak_skill_use WHERE skill_id IN (SELECT unnest({skill_ids})) AND actor_id IS NOT NULL
    GROUP BY skill_id, actor_id
)
QUALIFY row_number() OVER (PARTITION BY skill_id ORDER BY last_time DESC, actor_id) <= 5
ORDER BY skill_id, last_time DESC, actor_id;
