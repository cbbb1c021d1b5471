-- Vocabulary: term -> term_id, df (all lanes); identifier terms start with '='. The unique ART
-- index makes the step-1 lookup of a query's few terms a point lookup instead of a scan.
CREATE OR REPLACE TABLE fts_vocab AS
SELECT term, term_id, df
FROM fts_tidmap
ORDER BY term;

CREATE UNIQUE INDEX fts_vocab_term ON fts_vocab (term);
