-- The curation pass (warehouse/pipeline/curation.py): one trust score per entity of the generation,
-- from its source authority, its outcome and the access counter, by access_counter.trust_score's
-- formula (docs/access.md "Trust"; tests/test_trust.py checks the two agree row by row):
--   base   = 0.5 + 0.4·(authority − 0.5) + 0.4·(outcome − 0.5)
--   demand = tanh(hits / 10) · 0.5^(days since last access / 30)
--   trust  = clamp(base + 0.2·demand, 0, 1)
-- Entities are the ids responses carry (what the counter records): episodes, actors, live skills,
-- memories (memory_key) and the code chunks the counter holds (their doc_key). Authority by source kind: a saved AutoClaw
-- agent (and its runs) 0.7, a team member 0.6, an ad-hoc DSH session, subagent or unowned run 0.5;
-- a SKILL.md skill 0.7; an AutoClaw memory 0.6; a code chunk 0.5. Outcome: success 1, partial 0.75,
-- unknown / running 0.5, cancelled 0.25, failure 0; an actor's is its success_rate (none: 0.5).
-- {counter} = VALUES rows (entity, hits, last_accessed_at) of literals; {now} = a TIMESTAMPTZ literal.
WITH counter(entity_id, hits, last_accessed_at) AS (VALUES {counter}),
authority_of(actor_kind, authority) AS (
    VALUES ('autoclaw_agent', 0.7), ('team_member', 0.6), ('root_session', 0.5), ('subagent', 0.5)
),
episodes AS (
    SELECT e.episode_id AS entity_id, 'episode' AS kind, coalesce(au.authority, 0.5) AS authority,
           CASE e.outcome WHEN 'success' THEN 1.0 WHEN 'partial' THEN 0.75 WHEN 'cancelled' THEN 0.25
                          WHEN 'failure' THEN 0.0 ELSE 0.5 END AS outcome
    FROM ak_episode e LEFT JOIN ak_actor a USING (actor_id) LEFT JOIN authority_of au ON au.actor_kind = a.kind
),
actors AS (
    SELECT a.actor_id, 'actor', coalesce(au.authority, 0.5), coalesce(a.success_rate, 0.5)
    FROM ak_actor a LEFT JOIN authority_of au ON au.actor_kind = a.kind
),
skills AS (
    SELECT skill_id, 'skill', 0.7, 0.5 FROM ak_skill WHERE status = 'live'
),
memories AS (
    SELECT memory_key, 'memory', 0.6, 0.5 FROM ak_memory
),
chunks AS (  -- only the counted ones: an uncounted chunk's inputs are all neutral, its trust exactly 0.5,
             -- which is what an entity without a row gets; the bulk of a large index costs nothing here
    SELECT d.doc_key, 'code', 0.5, 0.5 FROM ak_document d SEMI JOIN counter c ON c.entity_id = d.doc_key
    WHERE d.lane = 'code'
),
entities AS (
    SELECT * FROM episodes UNION ALL SELECT * FROM actors UNION ALL SELECT * FROM skills
    UNION ALL SELECT * FROM memories UNION ALL SELECT * FROM chunks
),
demand AS (
    SELECT x.*, coalesce(c.hits, 0) AS hits, c.last_accessed_at,
           0.5 + 0.4 * (x.authority - 0.5) + 0.4 * (x.outcome - 0.5) AS base,
           CASE WHEN coalesce(c.hits, 0) > 0 AND c.last_accessed_at IS NOT NULL
                THEN tanh(c.hits / 10.0) * pow(0.5, greatest(epoch({now}) - epoch(CAST(c.last_accessed_at AS TIMESTAMPTZ)), 0)
                                                     / 86400.0 / 30.0)
                ELSE 0.0 END AS demand
    FROM entities x LEFT JOIN counter c USING (entity_id)
)
SELECT entity_id, kind, least(greatest(base + 0.2 * demand, 0.0), 1.0) AS trust_score,
       CAST(authority AS DOUBLE), CAST(outcome AS DOUBLE), CAST(hits AS BIGINT), last_accessed_at
FROM demand
ORDER BY entity_id;
