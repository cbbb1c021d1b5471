-- Where each final item of a response lives, for the late-binding check against the live source
-- (warehouse/extract/live.py): {doc_ids} are literal integers (a point lookup, as item_details.sql).
-- tool_grants: a Claude Code / Codex session's workspace keys (ak_acl_session): its rights come from the
-- folder it ran in, which its append-only file cannot change, so they are confirmed from the generation.
WITH docs AS (
    SELECT doc_id, lane, source, session_id, account, workspace_id, path, doc_key
    FROM ak_document
    WHERE doc_id IN ({doc_ids})
),
tool AS (
    SELECT a.session_id, list(a.grant_key ORDER BY a.grant_key) AS tool_grants
    FROM ak_acl_session a JOIN stg_dsh_sessions s USING (session_id)
    WHERE a.source = 'harness' AND s.origin IN ('claude_code', 'codex')
      AND a.session_id IN (SELECT session_id FROM docs WHERE source = 'harness')
    GROUP BY a.session_id
)
SELECT d.*, t.tool_grants
FROM docs d LEFT JOIN tool t ON d.source = 'harness' AND t.session_id = d.session_id
ORDER BY doc_id;
