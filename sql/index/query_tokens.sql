-- Step 1a of a query: the query literal is a bound parameter run through the SAME tokenizer
-- macro as the documents; it is never parsed as FTS or SQL syntax.
SELECT list_sort(list_distinct(akw_terms($query)));
