-- Chunks of workspace code and docs (by symbol, heading or line window) for the code lane.
-- unique: chunk_id
-- not_null: chunk_id
SELECT * FROM {{ lake('code', 'code_chunks') }}
-- ties (one chunk id from two writers of a team lake) break on the folder and text: deterministic
QUALIFY row_number() OVER (PARTITION BY chunk_id ORDER BY end_line DESC, workspace_path, text) = 1
