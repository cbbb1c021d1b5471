-- Which saved agent took part in which run, with outcome and evidence, plus its attempts.
WITH p AS (
    SELECT * FROM {{ lake('autoclaw', 'ac_participations') }}
    QUALIFY row_number() OVER (PARTITION BY account, participation_id ORDER BY extracted_seq DESC) = 1
),
a AS (
    SELECT * FROM {{ lake('autoclaw', 'ac_attempts') }}
    QUALIFY row_number() OVER (PARTITION BY account, attempt_id ORDER BY extracted_seq DESC) = 1
)
SELECT p.account, p.participation_id, p.run_id, p.agent_id, p.name, p.description, p.assignment, p.reason,
       p.outcome, p.contribution_evidence, p.created_at,
       count(a.attempt_id) AS attempts,
       count(a.attempt_id) FILTER (WHERE a.status IN ('failed', 'error')) AS failed_attempts,
       max(a.finished_at) AS last_attempt_at
FROM p LEFT JOIN a ON a.account = p.account AND a.participation_id = p.participation_id
GROUP BY ALL
