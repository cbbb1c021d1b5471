-- Memories (AutoClaw memory_assets): metadata and lineage only; the text is in ak_document (lane memories).
-- col: memory_key: stable id memory:autoclaw:<account>:<memory_id>
-- unique: memory_key
-- not_null: memory_key, account, memory_id, is_current
SELECT 'memory:autoclaw:' || account || ':' || memory_id AS memory_key,
       account, memory_id, scope, workspace, lifecycle, title, content_hash,
       source_session_id, source_entry_id, supersedes_memory_id, superseded_by, is_current,
       created_at, updated_at
FROM {{ ref('stg_ac_memories') }}
ORDER BY memory_key
