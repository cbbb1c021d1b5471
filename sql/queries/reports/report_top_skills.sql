-- `akw report`: the live skills used most (names and counts only).
SELECT name, root_kind, uses, actors, last_used_at
FROM ak_skill
WHERE status = 'live'
ORDER BY uses DESC, name
LIMIT 10
