-- Where each final item of a response lives, for the late-binding check against the live source
-- (warehouse/extract/live.py): {doc_ids} are literal integers (a point lookup, as item_details.sql).
SELECT doc_id, lane, source, session_id, account, workspace_id, path, doc_key
FROM ak_document
WHERE doc_id IN ({doc_ids})
ORDER BY doc_id;
