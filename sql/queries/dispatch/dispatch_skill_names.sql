-- knowledge_dispatch: every live skill name (a task may name or imply one).
SELECT DISTINCT name FROM ak_skill WHERE status = 'live' ORDER BY name
