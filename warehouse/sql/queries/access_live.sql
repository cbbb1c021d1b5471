-- Where each final item of a response lives, for the late-binding check against the live source
-- (warehouse/extract/live.py): {doc_ids} are literal integers.
SELECT d.doc_id, d.lane, d.source, d.session_id, d.account, d.workspace_id, d.path, s.path AS skill_path,
       acl.grant_key AS registry_workspace
FROM ak_document d
LEFT JOIN stg_skills s ON d.lane = 'skills' AND s.skill_id = d.doc_key
LEFT JOIN ak_acl_session acl ON d.source = 'harness' AND acl.source = 'harness' AND acl.session_id = d.session_id
WHERE d.doc_id IN ({doc_ids})
ORDER BY d.doc_id, acl.grant_key;
