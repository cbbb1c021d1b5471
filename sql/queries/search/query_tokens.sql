-- Step 1a of a query: the query, a hex-encoded text literal ({query}, see
-- warehouse/core/literals.py), runs through the SAME tokenizer macro as the documents; it is
-- never parsed as FTS or SQL syntax. (Distinct/sort is done by
-- the caller: list_distinct here added ~0.5 ms of bind time per query.)
SELECT akw_terms({query});
