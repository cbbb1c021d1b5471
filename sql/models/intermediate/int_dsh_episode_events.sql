-- DSH events assigned to episodes. An episode is one human turn: it starts at a human request
-- and runs until the next one. Harness context before the first request belongs to no episode;
-- a session with no human request at all is one episode (turn 0).
-- materialized: view
-- col: episode_id: episode:harness:<session_id>:<turn number>
WITH turns AS (
    SELECT session_id, max(turn_no) AS session_turns FROM {{ ref('stg_dsh_events') }} GROUP BY session_id
)
SELECT e.*,
       CASE WHEN t.session_turns = 0 THEN 0 ELSE e.turn_no END AS ep_no,
       'episode:harness:' || e.session_id || ':' || (CASE WHEN t.session_turns = 0 THEN 0 ELSE e.turn_no END)
           AS episode_id
FROM {{ ref('stg_dsh_events') }} e
JOIN turns t USING (session_id)
WHERE t.session_turns = 0 OR e.turn_no > 0
