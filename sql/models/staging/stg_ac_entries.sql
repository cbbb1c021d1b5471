-- AutoClaw conversation entries with the source's duplicates marked, so each is counted once:
-- * a `request` is written per model call: the same text as the previous request of the session
--   with no `answer` in between is a duplicate (a repeat after an answer is a real resend);
-- * an `answer` repeats the run's final `assistant` text;
-- * `reasoning` repeats within a run (and in two languages): the first one per run is kept.
-- col: is_duplicate: true for entries that repeat content already counted
WITH e AS (
    SELECT * FROM {{ lake('autoclaw', 'ac_entries') }}
    QUALIFY row_number() OVER (PARTITION BY account, session_id, entry_id ORDER BY extracted_seq DESC) = 1
),
numbered AS (
    SELECT *,
           sum(CASE WHEN entry_type = 'answer' THEN 1 ELSE 0 END)
               OVER (PARTITION BY account, session_id ORDER BY session_seq ROWS UNBOUNDED PRECEDING) AS answers_before
    FROM e
),
req AS (
    SELECT account, session_id, entry_id,
           lag(text_hash) OVER w AS prev_hash,
           lag(answers_before) OVER w AS prev_answers
    FROM numbered WHERE entry_type = 'request'
    WINDOW w AS (PARTITION BY account, session_id ORDER BY session_seq)
),
assistant_text AS (
    SELECT DISTINCT account, run_id, text_hash FROM e WHERE entry_type = 'assistant' AND text_hash IS NOT NULL
),
first_reasoning AS (
    SELECT account, run_id, min(session_seq) AS seq FROM e WHERE entry_type = 'reasoning' GROUP BY ALL
)
SELECT n.*,
       CASE
           WHEN n.entry_type = 'request' THEN r.prev_hash IS NOT NULL AND r.prev_hash = n.text_hash
                                              AND r.prev_answers = n.answers_before
           WHEN n.entry_type = 'answer' THEN a.text_hash IS NOT NULL
           WHEN n.entry_type = 'reasoning' THEN n.session_seq <> fr.seq
           ELSE false
       END AS is_duplicate
FROM numbered n
LEFT JOIN req r USING (account, session_id, entry_id)
LEFT JOIN assistant_text a ON a.account = n.account AND a.run_id = n.run_id AND a.text_hash = n.text_hash
                          AND n.entry_type = 'answer'
LEFT JOIN first_reasoning fr ON fr.account = n.account AND fr.run_id = n.run_id AND n.entry_type = 'reasoning'
