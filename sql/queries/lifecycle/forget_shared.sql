-- Documents outside a forget target that contain a candidate fragment ($1): such a fragment is not
-- unique to the target, so finding it after the forget proves nothing. $2 the target's doc keys.
SELECT count(*) FROM ak_document WHERE NOT list_contains($2, doc_key) AND contains(text, $1)
