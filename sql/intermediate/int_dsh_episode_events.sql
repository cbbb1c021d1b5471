-- DSH events assigned to episodes. An episode is one human turn: it starts at a human request
-- and runs until the next one. Harness context before the first request belongs to no episode;
-- a session with no human request at all is one episode (turn 0).
-- col: episode_id: episode:harness:<session_id>:<turn number>
WITH e AS (
    SELECT e.*, max(turn_no) OVER (PARTITION BY session_id) AS session_turns
    FROM {{ ref('stg_dsh_events') }} e
)
SELECT e.* EXCLUDE (session_turns),
       CASE WHEN session_turns = 0 THEN 0 ELSE turn_no END AS ep_no,
       'episode:harness:' || session_id || ':' || (CASE WHEN session_turns = 0 THEN 0 ELSE turn_no END) AS episode_id
FROM e
WHERE session_turns = 0 OR turn_no > 0
