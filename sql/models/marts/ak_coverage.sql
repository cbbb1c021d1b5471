-- Coverage reconciliation (AC-4): for each (source, entity), what the extractor saw against what
-- the marts hold, so a silently lost or double-counted unit shows up as ok = false in `akw status`.
-- source_units counts the lake / unit state; indexed counts distinct ids in the mart; duplicates
-- counts ids repeated in the mart plus, for AutoClaw entries, the entries marked is_duplicate
-- (repeated content, counted once). ok: no id repeats and indexed + marked duplicates = source_units.
-- col: source_units: units the extractor saw (lake rows or unit states; deleted AutoClaw sessions excluded)
-- col: indexed: distinct ids of those units found in the mart named by `mart`
-- col: duplicates: ids appearing more than once in the mart (AutoClaw entries: entries flagged is_duplicate)
-- col: ok: true when every source unit is indexed exactly once
-- unique: source, entity
-- not_null: source, entity, mart, ok
-- accepted_values: source: dsh, autoclaw, skills, code, claude_code, codex
WITH state AS (SELECT * FROM {{ ref('ak_source_state') }}),
ac_sessions AS (
    SELECT * FROM {{ lake('autoclaw', 'ac_sessions') }}
    QUALIFY row_number() OVER (PARTITION BY account, session_id ORDER BY extracted_seq DESC) = 1
),
ac_runs AS (  -- runs of live sessions; a run whose session row is missing still counts (and shows as a gap)
    SELECT DISTINCT r.account, r.run_id, r.session_id
    FROM {{ lake('autoclaw', 'ac_runs') }} r
    LEFT JOIN ac_sessions s ON s.account = r.account AND s.session_id = r.session_id
    WHERE s.deleted_at IS NULL
),
ac_entries AS (
    SELECT DISTINCT e.account, e.session_id, e.entry_id
    FROM {{ lake('autoclaw', 'ac_entries') }} e
    JOIN ac_sessions s ON s.account = e.account AND s.session_id = e.session_id AND s.deleted_at IS NULL
),
origins AS (  -- which session source a harness event comes from (ak_event says `harness` for all three)
    SELECT session_id, origin FROM {{ ref('stg_dsh_sessions') }}
),
harness_ev AS (
    SELECT e.*, o.origin FROM {{ ref('ak_event') }} e JOIN origins o USING (session_id) WHERE e.source = 'harness'
),
dsh_ev AS (SELECT * FROM harness_ev WHERE origin = 'dsh'),
tool_lake_events AS (
    SELECT DISTINCT 'claude_code' AS origin, session_id, seq FROM {{ lake('claude_code', 'events') }}
    UNION ALL SELECT DISTINCT 'codex', session_id, seq FROM {{ lake('codex', 'events') }}
),
ac_ev AS (SELECT * FROM {{ ref('ak_event') }} WHERE source = 'autoclaw'),
ac_ep AS (SELECT * FROM {{ ref('ak_episode') }} WHERE source = 'autoclaw'),
skill_docs AS (SELECT doc_key FROM {{ ref('ak_document') }} WHERE kind = 'skill'),
chunk_docs AS (SELECT * FROM {{ ref('ak_document') }} WHERE kind = 'chunk'),
lake_skills AS (SELECT DISTINCT skill_id, status FROM {{ lake('skills', 'skills') }}),
rows AS (
    SELECT 'dsh' AS source, 'sessions' AS entity, 'ak_event' AS mart,
           (SELECT count(*) FROM state WHERE source = 'dsh' AND unit LIKE 'session:%' AND status = 'ok'
                AND coalesce(TRY_CAST(json_extract(counts_json, '$.events') AS BIGINT), 0) > 0) AS source_units,
           (SELECT count(DISTINCT session_id) FROM dsh_ev) AS indexed,
           (SELECT count(*) - count(DISTINCT sid) FROM (SELECT unnest(session_ids) AS sid FROM {{ ref('ak_actor') }}
                                                       WHERE source = 'harness')) AS repeats,
           0 AS marked
    UNION ALL
    SELECT 'dsh', 'events', 'ak_event',
           (SELECT count(*) FROM (SELECT DISTINCT session_id, seq FROM {{ lake('dsh', 'events') }})),
           (SELECT count(DISTINCT event_id) FROM dsh_ev),
           (SELECT count(*) - count(DISTINCT event_id) FROM dsh_ev), 0
    UNION ALL
    SELECT t.origin, 'sessions', 'ak_event',  -- a Claude Code / Codex file is one session (a subagent's too)
           (SELECT count(DISTINCT session_id) FROM tool_lake_events l WHERE l.origin = t.origin),
           (SELECT count(DISTINCT session_id) FROM harness_ev e WHERE e.origin = t.origin), 0, 0
    FROM (VALUES ('claude_code'), ('codex')) t(origin)
    UNION ALL
    SELECT t.origin, 'events', 'ak_event',
           (SELECT count(*) FROM tool_lake_events l WHERE l.origin = t.origin),
           (SELECT count(DISTINCT event_id) FROM harness_ev e WHERE e.origin = t.origin),
           (SELECT count(*) - count(DISTINCT event_id) FROM harness_ev e WHERE e.origin = t.origin), 0
    FROM (VALUES ('claude_code'), ('codex')) t(origin)
    UNION ALL
    SELECT 'autoclaw', 'sessions', 'ak_episode',
           (SELECT count(DISTINCT (account, session_id)) FROM ac_runs),
           (SELECT count(DISTINCT (account, session_id)) FROM ac_ep), 0, 0
    UNION ALL
    SELECT 'autoclaw', 'runs', 'ak_episode',
           (SELECT count(*) FROM ac_runs),
           (SELECT count(DISTINCT episode_id) FROM ac_ep),
           (SELECT count(*) - count(DISTINCT episode_id) FROM ac_ep), 0
    UNION ALL
    SELECT 'autoclaw', 'entries', 'ak_event',
           (SELECT count(*) FROM ac_entries),
           (SELECT count(DISTINCT event_id) FROM ac_ev WHERE NOT is_duplicate),
           (SELECT count(*) - count(DISTINCT event_id) FROM ac_ev),
           (SELECT count(*) FILTER (WHERE is_duplicate) FROM ac_ev)
    UNION ALL
    SELECT 'autoclaw', 'memories', 'ak_memory',
           (SELECT count(*) FROM (SELECT DISTINCT account, memory_id FROM {{ lake('autoclaw', 'ac_memories') }})),
           (SELECT count(DISTINCT memory_key) FROM {{ ref('ak_memory') }}),
           (SELECT count(*) - count(DISTINCT memory_key) FROM {{ ref('ak_memory') }}), 0
    UNION ALL
    SELECT 'skills', 'skills_live', 'ak_skill+ak_document',
           (SELECT count(*) FROM lake_skills WHERE status = 'live'),
           (SELECT count(DISTINCT skill_id) FROM {{ ref('ak_skill') }}
            WHERE status = 'live' AND skill_id IN (SELECT doc_key FROM skill_docs)),
           (SELECT count(*) - count(DISTINCT skill_id) FROM {{ ref('ak_skill') }}), 0
    UNION ALL
    SELECT 'skills', 'skills_removed', 'ak_skill',  -- known as removed, never searchable as live
           (SELECT count(*) FROM lake_skills WHERE status = 'removed'),
           (SELECT count(DISTINCT skill_id) FROM {{ ref('ak_skill') }}
            WHERE status = 'removed' AND skill_id NOT IN (SELECT doc_key FROM skill_docs)),
           0, 0
    UNION ALL
    SELECT 'code', 'files', 'ak_document',
           (SELECT count(*) FROM (SELECT DISTINCT workspace_id, rel_path FROM {{ lake('code', 'code_files') }}
                                  WHERE chunks > 0)),
           (SELECT count(DISTINCT (workspace_id, path)) FROM chunk_docs), 0, 0
    UNION ALL
    SELECT 'code', 'chunks', 'ak_document',
           (SELECT count(DISTINCT chunk_id) FROM {{ lake('code', 'code_chunks') }}),
           (SELECT count(DISTINCT doc_key) FROM chunk_docs),
           (SELECT count(*) - count(DISTINCT doc_key) FROM chunk_docs), 0
)
SELECT source, entity, mart, CAST(source_units AS BIGINT) AS source_units, CAST(indexed AS BIGINT) AS indexed,
       CAST(repeats + marked AS BIGINT) AS duplicates,
       repeats = 0 AND indexed + marked = source_units AS ok
FROM rows
ORDER BY source, entity
