-- Skill usage over time (uses per skill per week)
SELECT CAST(date_trunc('week', time) AS DATE) AS week, skill_name, count(*) AS uses
FROM ak_skill_use
WHERE time IS NOT NULL
GROUP BY ALL
ORDER BY week, skill_name
