-- Data-quality frame (warehouse/quality): one text column of one lake table (every unit's Parquet file),
-- scanned for secrets in Python with warehouse.core.redact; the text itself never leaves the process.
SELECT '{table}.{column}#' || CAST(row_number() OVER () AS VARCHAR) AS key, CAST("{column}" AS VARCHAR) AS value
FROM read_parquet({glob}, union_by_name = true)
WHERE "{column}" IS NOT NULL
