-- Each lane's own index_rev: a hash of the revisions of the source units that feed it.
SELECT lane, 'lane-' || lane || '-' || left(md5(string_agg(source || '|' || unit || '|' || coalesce(revision, '') || '|'
                                                          || status, ';' ORDER BY source, unit)), 12) AS rev,
       count(*) FILTER (WHERE status = 'error') AS failed_units,
       list(DISTINCT error_code ORDER BY error_code) FILTER (WHERE status = 'error') AS codes
FROM (
    SELECT CASE source WHEN 'dsh' THEN 'episodes' WHEN 'autoclaw' THEN 'episodes' ELSE source END AS lane, *
    FROM ak_source_state
)
GROUP BY lane
ORDER BY lane;
