-- Access control on a team lake: the writer(s) each searchable document came from (any one suffices
-- for `access.principals.<email>.writers`; an id two writers both pushed has both). DSH and AutoClaw
-- episodes and events: their session's writer; AutoClaw memories: their account's; code: its
-- workspace's; skills: the writer of the row the skill was built from (stg_skills keeps one row per
-- skill id: a skill two writers pushed is the newest copy, and only that copy's writer vouches for it,
-- so a principal of the other writer is never shown the other machine's path). Actor profiles carry no row: they follow their episodes
-- (sql/queries/search/access_allowed.sql). Empty in a local build: there every document is the
-- local writer's (`lake.writer_id`, else `local`), resolved at query time.
-- col: writer_id: lake.writer_id of the machine whose bronze rows the document was built from
-- unique: doc_id, writer_id
-- not_null: doc_id, lane, writer_id
WITH docs AS (
    SELECT doc_id, doc_key, lane, kind, source, session_id, account, workspace_id FROM {{ ref('ak_document') }}
),
scope AS (
    SELECT writer_id, kind, id FROM {{ ref('ak_writer_scope') }}
),
skill_rows AS (
    SELECT skill_id, path FROM {{ ref('stg_skills') }}
),
keyed AS (
    SELECT doc_id, lane,
           CASE
               WHEN lane = 'episodes' AND kind = 'memory' THEN 'account'
               WHEN lane = 'episodes' THEN 'session'
               WHEN lane = 'code' THEN 'workspace'
               WHEN lane = 'skills' THEN 'skill_row'
           END AS scope_kind,
           CASE
               WHEN lane = 'episodes' AND kind = 'memory' THEN account
               WHEN lane = 'episodes' THEN session_id
               WHEN lane = 'code' THEN workspace_id
               WHEN lane = 'skills' THEN doc_key || '|' || r.path
           END AS scope_id
    FROM docs
    LEFT JOIN skill_rows r ON docs.lane = 'skills' AND r.skill_id = docs.doc_key
),
written AS (
    SELECT DISTINCT k.doc_id, k.lane, s.writer_id
    FROM keyed k JOIN scope s ON s.kind = k.scope_kind AND s.id = k.scope_id
)
SELECT doc_id, lane, writer_id FROM written
ORDER BY doc_id, writer_id
