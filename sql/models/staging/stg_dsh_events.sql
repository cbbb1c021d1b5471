-- Events of every harness session (DSH, Claude Code, Codex: one event model, `extract/eventlog.py`),
-- replayed parent history already skipped by the extractor;
-- a second copy of the same (session, seq) is dropped. Adds the human-turn number that
-- splits a session into episodes: an episode starts at each human message.
-- col: turn_no: number of human messages at or before this event (0 = before the first human request)
WITH harness AS (
    SELECT * FROM {{ lake('dsh', 'events') }}
    UNION ALL BY NAME SELECT * FROM {{ lake('claude_code', 'events') }}
    UNION ALL BY NAME SELECT * FROM {{ lake('codex', 'events') }}
),
e AS (
    SELECT * FROM harness
    QUALIFY row_number() OVER (PARTITION BY session_id, seq ORDER BY line_no) = 1
)
SELECT e.*,
       sum(CASE WHEN role = 'human' THEN 1 ELSE 0 END)
           OVER (PARTITION BY session_id ORDER BY seq ROWS UNBOUNDED PRECEDING) AS turn_no
FROM e
