-- Every right of the generation that holds documents (source system, grant kind, grant key), in a
-- stable order: the content-free hint names which of them hold a relevant hidden document
-- (access_right_bits.sql, access_hidden.sql).
SELECT DISTINCT source, grant_kind, grant_key FROM ak_acl_document ORDER BY source, grant_kind, grant_key;
