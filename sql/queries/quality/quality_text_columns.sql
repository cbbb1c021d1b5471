-- Data-quality: the VARCHAR columns of the ak_* marts, the ones the secret scan reads.
SELECT table_name, column_name
FROM duckdb_columns()
WHERE table_name LIKE 'ak\_%' ESCAPE '\' AND data_type = 'VARCHAR' AND NOT internal
ORDER BY table_name, column_index
