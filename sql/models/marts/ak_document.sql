-- Searchable documents, one row per item a lane can return, with filter columns and a stable id.
-- Lanes: episodes (episode summaries, assistant messages, tool calls and results, memories),
-- code (chunks), skills (live skills), and the internal lane actors: what a saved agent, team
-- member or subagent is (name, kind, description, a saved agent's instructions), one document per actor
-- that did an episode, standing on its representative episode (its newest successful one, else its
-- newest: session_id/seq/episode_id/time/outcome/workspace are that episode's). The actors lane only
-- feeds the actor ranking (ak_actor_profile); it is never a lane of a response. Injected harness
-- messages, reasoning, AutoClaw duplicates and bare announcements ("Loading the X skill.") are not
-- documents. Texts are words: tool inputs and file lists are rendered from their JSON (macros/text.sql).
-- doc_id is dense and follows (lane, doc_key) order.
-- Search fetches single rows by doc_id (item details); an FSST segment decodes up to the row, so
-- the short columns whose FSST segments span whole row groups are stored uncompressed.
-- compression: title=uncompressed, path=uncompressed, symbol=uncompressed, language=uncompressed
-- compression: source_kind=uncompressed, account=uncompressed
-- col: doc_key: ep:<session>:<seq> (an event; its response item id is episode_id) | mem:<account>:<memory_id> | chunk:… | skill:… | actor:… (lane actors: ak_actor.actor_id)
-- col: ws_no: a number per (workspace_id, workspace_path) pair, NULL for none (ak_document_workspace)
-- col: ident_text: names matched exactly with a boost (skill names, paths, symbols)
-- unique: doc_id
-- unique: doc_key
-- not_null: doc_id, doc_key, lane, kind, source
-- accepted_values: lane: episodes, code, skills, actors
-- accepted_values: kind: episode, assistant, tool_call, tool_result, artifact, system, memory, skill, chunk, actor
-- accepted_values: source: harness, autoclaw, skills, code
-- accepted_values: outcome: success, partial, failure, cancelled, running, unknown
WITH dsh_ep AS (
    SELECT 'ep:' || e.session_id || ':' || coalesce(e.goal_seq, e.seq_first) AS doc_key, 'episodes' AS lane,
           'episode' AS kind, 'harness' AS source, e.title,
           concat_ws(E'\n', e.goal_text, array_to_string(e.goal_changes, E'\n'), e.final_answer,
                     array_to_string(e.commands[:20], E'\n')) AS text,
           concat_ws(' ', array_to_string(e.skills, ' '), array_to_string(e.files[:20], ' ')) AS ident_text,
           e.workspace_id, e.workspace_path, e.session_id, coalesce(e.goal_seq, e.seq_first) AS seq,
           'user/message' AS event_type, e.episode_id, e.actor_id, e.started_at AS time, e.outcome,
           coalesce(e.skills, []) AS skills, CAST(NULL AS VARCHAR) AS account
    FROM {{ ref('int_dsh_episodes') }} e
),
dsh_ev AS (
    SELECT 'ep:' || v.session_id || ':' || v.seq, 'episodes', v.role, 'harness', NULL,
           CASE
               WHEN v.role = 'tool_call' THEN concat_ws(' ', v.tool_name, coalesce(v.command, v.file_path),
                                                        v.skill_name, left(v.text, 2000))
               WHEN v.kind IN ('deliverables/presented', 'workspace/changes')
                   THEN coalesce(akw_files_text(v.files_json), v.text)
               ELSE left(v.text, 4000)
           END,
           concat_ws(' ', v.skill_name, v.file_path),
           e.workspace_id, e.workspace_path, v.session_id, v.seq, v.kind, v.episode_id, e.actor_id, v.time, e.outcome,
           coalesce(e.skills, []), NULL
    FROM {{ ref('int_dsh_episode_events') }} v
    JOIN {{ ref('int_dsh_episodes') }} e USING (episode_id)
    WHERE v.seq <> coalesce(e.goal_seq, -1)
      AND (v.role IN ('assistant', 'tool_call', 'tool_result')
           OR v.kind IN ('deliverables/presented', 'workspace/changes', 'compaction/completed'))
      AND NOT (v.role IN ('assistant', 'tool_result') AND akw_is_announcement(v.text))
      -- something besides spaces in text, command or files (ltrim: no concatenated copy per row)
      AND (ltrim(coalesce(v.text, '')) <> '' OR ltrim(coalesce(v.command, '')) <> ''
           OR ltrim(coalesce(v.files_json, '')) <> '')
),
ac_ep AS (
    SELECT 'ep:' || a.session_id || ':' || a.seq_first, 'episodes', 'episode', 'autoclaw', a.title,
           concat_ws(E'\n', a.goal_text, a.final_answer), array_to_string(a.tools, ' '),
           ep.workspace_id, a.workspace_path, a.session_id, a.seq_first, 'request', a.episode_id, a.actor_id,
           a.started_at, a.outcome, ep.skills, a.account
    FROM {{ ref('int_ac_episodes') }} a JOIN {{ ref('ak_episode') }} ep USING (episode_id)
),
ac_ev AS (
    SELECT 'ep:' || x.session_id || ':' || x.session_seq, 'episodes', x.entry_type, 'autoclaw', NULL,
           CASE WHEN x.entry_type = 'tool_call' THEN concat_ws(' ', x.tool_name, left(akw_json_text(x.tool_input), 2000))
                WHEN x.entry_type = 'tool_result'
                    THEN concat_ws(' ', x.tool_name, akw_json_text(x.tool_error), left(x.text, 4000))
                ELSE left(x.text, 4000) END,
           x.tool_name, ep.workspace_id, ep.workspace_path, x.session_id, x.session_seq, x.entry_type, ep.episode_id,
           ep.actor_id, x.committed_at, ep.outcome, ep.skills, x.account
    FROM {{ ref('stg_ac_entries') }} x
    JOIN {{ ref('ak_episode') }} ep ON ep.episode_id = 'episode:autoclaw:' || x.account || ':' || x.run_id
    WHERE NOT x.is_duplicate AND x.entry_type IN ('assistant', 'tool_call', 'tool_result')
      AND NOT (x.entry_type IN ('assistant', 'tool_result') AND akw_is_announcement(x.text))
      AND x.session_seq <> ep.seq_first
      AND coalesce(x.text, x.tool_input, x.tool_error) IS NOT NULL
),
mem AS (
    SELECT 'mem:' || m.account || ':' || m.memory_id, 'episodes', 'memory', 'autoclaw', m.title,
           concat_ws(E'\n', m.title, m.content, m.supporting_quote), NULL,
           w.workspace_id, m.workspace, m.source_session_id, coalesce(src.session_seq, 0), 'memory', NULL, NULL,
           coalesce(m.updated_at, m.created_at), NULL, CAST([] AS VARCHAR[]), m.account
    FROM {{ ref('stg_ac_memories') }} m
    LEFT JOIN {{ ref('stg_dsh_workspaces') }} w ON w.path = m.workspace
    LEFT JOIN {{ ref('stg_ac_entries') }} src
      ON src.account = m.account AND src.session_id = m.source_session_id AND src.entry_id = m.source_entry_id
    WHERE m.is_current AND m.source_session_id IS NOT NULL
),
skills AS (
    -- what a skill is for (description, whenToUse) is said twice and the body capped, so a long
    -- body does not drown the purpose in BM25's length normalisation
    SELECT skill_id, 'skills', 'skill', 'skills', name,
           concat_ws(E'\n', name, description, when_to_use, description, when_to_use, left(body, 3000)), name,
           -- deployed_at is the AutoClaw ledger's text as written: one that is no time is no time (issue 27)
           workspace_id, NULL, NULL, NULL, 'skill', NULL, NULL, TRY_CAST(deployed_at AS TIMESTAMPTZ), NULL, [name],
           account
    FROM {{ ref('stg_skills') }} WHERE status = 'live'
),
episode_docs AS (SELECT * FROM dsh_ep UNION ALL SELECT * FROM ac_ep),
representative AS (  -- the episode an actor document stands on: newest successful, else newest
    SELECT * FROM episode_docs WHERE actor_id IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY actor_id ORDER BY outcome = 'success' DESC, time DESC NULLS LAST,
                                                              doc_key) = 1
),
actor_docs AS (
    SELECT a.actor_id, 'actors', 'actor', a.source, a.display_name,
           concat_ws(E'\n', a.display_name,
                     CASE a.kind WHEN 'autoclaw_agent' THEN 'saved AutoClaw agent' WHEN 'subagent' THEN 'subagent'
                                 ELSE 'team member (teammate) of an agent team' END,
                     a.description, g.instructions), NULL,
           r.workspace_id, r.workspace_path, r.session_id, r.seq, 'actor', r.episode_id, a.actor_id, r.time,
           r.outcome, CAST([] AS VARCHAR[]), a.account
    FROM {{ ref('ak_actor') }} a
    JOIN representative r USING (actor_id)
    LEFT JOIN {{ ref('stg_ac_agents') }} g ON g.account = a.account AND g.agent_id = a.agent_id
    WHERE a.kind <> 'root_session'
),
docs AS (
    SELECT * FROM episode_docs UNION ALL SELECT * FROM dsh_ev
    UNION ALL SELECT * FROM ac_ev UNION ALL SELECT * FROM mem UNION ALL SELECT * FROM skills
    UNION ALL SELECT * FROM actor_docs
),
with_code AS NOT MATERIALIZED (
    SELECT doc_key, lane, kind, source, title, text, ident_text, workspace_id, workspace_path, session_id,
           CAST(seq AS BIGINT) AS seq, event_type, episode_id, actor_id, CAST(time AS TIMESTAMPTZ) AS time, outcome, skills,
           account, CAST(NULL AS VARCHAR) AS path, CAST(NULL AS INTEGER) AS start_line, CAST(NULL AS INTEGER) AS end_line,
           CAST(NULL AS VARCHAR) AS source_kind, CAST(NULL AS VARCHAR) AS symbol, CAST(NULL AS VARCHAR) AS language
    FROM docs
    UNION ALL
    SELECT chunk_id, 'code', 'chunk', 'code', rel_path || coalesce(' ' || symbol, ''), text,
           concat_ws(' ', rel_path, symbol), workspace_id, workspace_path, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
           CAST([] AS VARCHAR[]), NULL, rel_path, start_line, end_line, source_kind, symbol, language
    FROM {{ ref('stg_code_chunks') }}
),
ws_keys AS (  -- a small integer per (workspace_id, workspace_path): filters scan it, not the strings
    SELECT workspace_id, workspace_path,
           CAST(row_number() OVER (ORDER BY workspace_id NULLS LAST, workspace_path NULLS LAST) AS INTEGER) AS ws_no
    FROM (SELECT DISTINCT workspace_id, workspace_path FROM with_code
          WHERE workspace_id IS NOT NULL OR workspace_path IS NOT NULL)
)
SELECT CAST(row_number() OVER (ORDER BY lane, doc_key) - 1 AS INTEGER) AS doc_id, w.*, k.ws_no
FROM with_code w
LEFT JOIN ws_keys k ON k.workspace_id IS NOT DISTINCT FROM w.workspace_id
                   AND k.workspace_path IS NOT DISTINCT FROM w.workspace_path
QUALIFY row_number() OVER (PARTITION BY doc_key ORDER BY kind = 'episode' DESC, length(text) DESC) = 1
ORDER BY doc_id
