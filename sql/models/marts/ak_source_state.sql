-- One row per source unit: revision, status and stable error code of its last extract.
-- col: status: ok | error | excluded | skipped (a link out of its source root: never read) |
--   expired (older than `retention_days`: dropped)
-- col: error_code: stable KNOWLEDGE_* code when status = error
-- unique: source, unit
-- not_null: source, unit, status
-- accepted_values: source: dsh, autoclaw, skills, code, claude_code, codex
-- accepted_values: status: ok, error, excluded, skipped, expired
SELECT source, unit, revision, status, error_code, error, counts_json, schema_version,
       TRY_CAST(extracted_at AS TIMESTAMPTZ) AS extracted_at
FROM {{ lake('meta', 'source_state') }}
ORDER BY source, unit
