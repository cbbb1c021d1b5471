-- Skills each actor used, most used first (at most 5 per actor).
SELECT actor_id, skill_name, count(*) AS uses
FROM ak_skill_use WHERE actor_id IN (SELECT unnest($actor_ids))
GROUP BY actor_id, skill_name
QUALIFY row_number() OVER (PARTITION BY actor_id ORDER BY count(*) DESC, skill_name) <= 5
ORDER BY actor_id, uses DESC, skill_name;
