-- Every reindex run (no-op runs included): mode, rev, outcome, duration, rows written, errors.
-- unique: run_id
-- not_null: run_id, mode, outcome
-- accepted_values: mode: incremental, full
-- accepted_values: outcome: building, published, noop, failed, cancelled
WITH r AS (SELECT line::JSON AS j FROM _akw_runs_raw)
SELECT j->>'run_id' AS run_id,
       j->>'mode' AS mode,
       j->>'outcome' AS outcome,
       j->>'index_rev' AS index_rev,
       TRY_CAST(j->>'started_at' AS TIMESTAMPTZ) AS started_at,
       TRY_CAST(j->>'finished_at' AS TIMESTAMPTZ) AS finished_at,
       TRY_CAST(j->>'duration_s' AS DOUBLE) AS duration_s,
       json_array_length(j->'errors') AS error_count,
       (j->'errors')::VARCHAR AS errors_json,
       (j->'extract'->'sources')::VARCHAR AS sources_json
FROM r
ORDER BY started_at, run_id
