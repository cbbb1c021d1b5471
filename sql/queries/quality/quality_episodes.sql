-- Data-quality frame (warehouse/quality): every episode with its evidence reference checked against the
-- events of its session (DSH: <session_id>#seq=<first>-<last> inside the session's seq bounds; AutoClaw:
-- autoclaw:<account>/<run_id> naming the episode's own run) and its actor resolved in ak_actor.
WITH episodes AS (SELECT * FROM ak_episode),
actors AS (SELECT actor_id FROM ak_actor),
bounds AS (
    SELECT session_id, min(seq) AS seq_min, max(seq) AS seq_max
    FROM ak_event
    GROUP BY session_id
),
checked AS (
    SELECT e.episode_id AS key,
           e.episode_id, e.source, e.outcome, e.owner_rule, e.origin,
           CASE WHEN e.source = 'harness'
                THEN e.evidence_ref = e.session_id || '#seq=' || e.seq_first || '-' || e.seq_last
                     AND b.session_id IS NOT NULL
                     AND e.seq_first >= b.seq_min AND e.seq_last <= b.seq_max AND e.seq_first <= e.seq_last
                ELSE e.evidence_ref = 'autoclaw:' || e.account || '/' || e.run_id
           END AS evidence_resolves,
           e.actor_id IS NULL OR a.actor_id IS NOT NULL AS actor_resolves
    FROM episodes e
    LEFT JOIN bounds b ON b.session_id = e.session_id
    LEFT JOIN actors a ON a.actor_id = e.actor_id
)
SELECT * FROM checked ORDER BY key
