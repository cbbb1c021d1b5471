-- One row per DSH episode with its goal, actions, result and outcome, derived deterministically.
-- Outcome: failure if the last tool result failed or the final answer says so; partial if the
-- answer states a remainder; success otherwise (macro akw_text_outcome).
-- Title: the turn's own (a title event, a goal change); the first episode may take the session's title,
-- a later one is titled by its own request (akw_title_of): a session of several tasks titled every turn
-- with the first task's title (issue 24). The session title is the last resort, and the context of a later
-- episode's vector (sql/build/vec_units.sql): "paint the paddles" is part of "a Pong game".
WITH ev AS (SELECT * FROM {{ ref('int_dsh_episode_events') }}),
agg AS (
    SELECT episode_id, session_id, ep_no,
           min(seq) AS seq_first, max(seq) AS seq_last,
           min(time) AS started_at, max(time) AS ended_at,
           count(*) AS events,
           arg_min(text, seq) FILTER (WHERE role = 'human') AS goal,
           arg_min(seq, seq) FILTER (WHERE role = 'human') AS goal_seq,
           arg_min(text, seq) FILTER (WHERE role = 'injected' AND text IS NOT NULL) AS first_injected,
           list(text ORDER BY seq) FILTER (WHERE kind = 'goal/change' AND text IS NOT NULL) AS goal_changes,
           arg_max(text, seq) FILTER (WHERE kind = 'session/title') AS turn_title,
           arg_max(text, seq) FILTER (WHERE role = 'assistant' AND text IS NOT NULL AND ltrim(text) <> '') AS final_answer,
           arg_max(seq, seq) FILTER (WHERE role = 'assistant' AND text IS NOT NULL AND ltrim(text) <> '') AS answer_seq,
           count(*) FILTER (WHERE role = 'tool_call') AS tool_calls,
           count(*) FILTER (WHERE role = 'tool_result' AND is_error) AS tool_errors,
           arg_max(is_error, seq) FILTER (WHERE role = 'tool_result') AS last_result_error,
           count(*) FILTER (WHERE kind LIKE 'compaction/%') AS compactions,
           count(*) FILTER (WHERE kind = 'deliverables/presented') AS deliverables,
           list(DISTINCT command ORDER BY command) FILTER (WHERE command IS NOT NULL) AS commands,
           list(DISTINCT file_path ORDER BY file_path) FILTER (WHERE file_path IS NOT NULL) AS files,
           list(DISTINCT skill_name ORDER BY skill_name) FILTER (WHERE skill_name IS NOT NULL) AS skills,
           list(DISTINCT tool_name ORDER BY tool_name) FILTER (WHERE tool_name IS NOT NULL) AS tools,
           list(DISTINCT target_name ORDER BY target_name)
               FILTER (WHERE tool_name IN ('spawn_teammate', 'subagent', 'team_task_create', 'send_message', 'Task', 'Agent')
                       AND target_name IS NOT NULL) AS delegated_to,
           sum(coalesce(input_tokens, 0)) AS input_tokens,
           sum(coalesce(output_tokens, 0)) AS output_tokens,
           arg_max(model, seq) FILTER (WHERE model IS NOT NULL) AS model
    FROM ev
    GROUP BY episode_id, session_id, ep_no
)
SELECT a.*,
       s.actor_id, s.actor_kind, s.workspace_id, s.workspace_path, s.cwd, s.origin,
       coalesce(a.goal, a.first_injected) AS goal_text,
       coalesce(a.turn_title, a.goal_changes[1], CASE WHEN a.ep_no <= 1 THEN s.title END, akw_title_of(a.goal),
                akw_title_of(a.first_injected), s.title, s.proj_title) AS title,
       CASE
           WHEN a.last_result_error THEN 'failure'
           ELSE akw_text_outcome(a.final_answer)
       END AS outcome
FROM agg a
JOIN {{ ref('stg_dsh_sessions') }} s USING (session_id)
