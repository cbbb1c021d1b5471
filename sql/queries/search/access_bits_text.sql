-- The principal's bitstring variable ({name}, access_bits.sql) as text, so another cursor of the process
-- (the hint worker, warehouse/search/side_worker.py) can hold the same variable (access_bits_set.sql).
SELECT getvariable('{name}')::VARCHAR;
