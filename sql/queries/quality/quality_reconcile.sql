-- Data-quality frame (warehouse/quality): counts the extractor recorded per unit in ak_source_state,
-- recounted in the marts now (a lost or duplicated row shows as expected <> actual), plus ak_coverage's
-- own verdict per (source, entity).
WITH state AS (SELECT * FROM ak_source_state WHERE status = 'ok'),
dsh_events AS (SELECT * FROM ak_event WHERE source = 'harness'),
code_chunks AS (SELECT * FROM ak_document WHERE lane = 'code'),
recount AS (
    SELECT 'dsh.sessions' AS key,
           (SELECT count(*) FROM state WHERE source = 'dsh' AND unit LIKE 'session:%'
                AND coalesce(TRY_CAST(json_extract(counts_json, '$.events') AS BIGINT), 0) > 0) AS expected,
           (SELECT count(DISTINCT session_id) FROM dsh_events) AS actual,
           true AS coverage_ok
    UNION ALL
    SELECT 'dsh.events',
           (SELECT coalesce(sum(TRY_CAST(json_extract(counts_json, '$.events') AS BIGINT)), 0)
            FROM state WHERE source = 'dsh' AND unit LIKE 'session:%'),
           (SELECT count(*) FROM dsh_events), true
    UNION ALL
    SELECT 'code.chunks',
           (SELECT coalesce(sum(TRY_CAST(json_extract(counts_json, '$.chunks') AS BIGINT)), 0)
            FROM state WHERE source = 'code'),
           (SELECT count(*) FROM code_chunks), true
    UNION ALL
    SELECT 'coverage.' || source || '.' || entity, source_units, indexed + duplicates, ok
    FROM ak_coverage
)
SELECT * FROM recount ORDER BY key
