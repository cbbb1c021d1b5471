-- The rights of relevant documents a principal may not see ({doc_ids}: literal integers): only the
-- source system and the right, so the hint can name a system and who may see it, nothing else.
SELECT DISTINCT source, grant_kind, grant_key FROM ak_acl_document
WHERE doc_id IN ({doc_ids})
ORDER BY source, grant_kind, grant_key;
