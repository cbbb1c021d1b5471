-- Data-quality frame (warehouse/quality): one text column of one mart, scanned for secrets in Python with
-- warehouse.core.redact (the same rules the extractors apply); the text itself never leaves the process.
SELECT '{mart}.{column}#' || CAST(row_number() OVER () AS VARCHAR) AS key, CAST("{column}" AS VARCHAR) AS value
FROM {mart}
WHERE "{column}" IS NOT NULL
