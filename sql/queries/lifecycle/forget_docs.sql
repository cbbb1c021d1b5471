-- The documents a forget target covers: $1 session ids, $2 actor ids, $3 skill ids, $4 workspace ids/paths
-- (lists from forget_target.sql). Their keys feed the forget hooks, their texts the residue needles.
SELECT doc_key, kind, session_id, coalesce(text, '') AS text
FROM ak_document
WHERE list_contains($1, session_id) OR list_contains($2, actor_id)
   OR (kind = 'skill' AND list_contains($3, doc_key))
   OR list_contains($4, workspace_id) OR list_contains($4, workspace_path)
ORDER BY doc_key
