-- Per-cursor search session: input tables and prepared statements, created once per cursor so a
-- search pays no SQL planning for tokenizing, fusion and actors (planning, not execution,
-- dominated them). The steps themselves are documented in fuse.sql / slots.sql / actors.sql.
CREATE TEMP TABLE _query (q VARCHAR);
-- the terms of query chunks by the index's own tokenizer macro (the chunks go into _query as
-- literals, never SQL); `warehouse.search.term_cache` memoizes them per generation
PREPARE akw_chunk_tokens AS SELECT q, akw_chunk_terms(q) FROM _query;
CREATE TEMP TABLE _hits (lane VARCHAR, lex DOUBLE, bits BIGINT, doc_id INTEGER, doc_key VARCHAR, episode_id VARCHAR,
                         actor_id VARCHAR, workspace_id VARCHAR, time TIMESTAMPTZ, outcome VARCHAR, grp VARCHAR,
                         cap_key VARCHAR, skills VARCHAR[], fb DOUBLE, tr DOUBLE, vec DOUBLE);
-- _hits.fb: the hit's feedback score in [-1, 1] (warehouse/search/feedback_scores.py: per document,
-- its item's score plus, for an episode, its actor's, clamped; 0 without feedback)
-- _hits.tr: the hit's trust in [0, 1] (warehouse/search/trust_scores.py: its item's ak_trust score; 0.5 without one)
-- _hits.vec: the unit's cosine similarity to the query (semantic.enabled, search/vector.py); NULL when the
-- vector side did not return it (or is off). _fused.vec: the best similarity of the item's group (its `why`)
CREATE TEMP TABLE _fused (lane VARCHAR, lex DOUBLE, bits BIGINT, doc_id INTEGER, doc_key VARCHAR, episode_id VARCHAR,
                          actor_id VARCHAR, workspace_id VARCHAR, time TIMESTAMPTZ, outcome VARCHAR, grp VARCHAR,
                          cap_key VARCHAR, grp_bits BIGINT, coverage DOUBLE, groups_matched BIGINT, relevance DOUBLE,
                          lane_rank BIGINT, rrf DOUBLE, rel DOUBLE, lane_priority INTEGER, cap_rank BIGINT,
                          evidence BIGINT, vec DOUBLE);
