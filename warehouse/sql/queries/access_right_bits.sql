-- One right's documents as a bitstring session variable ({name}; bit n set = doc_id n holds the right),
-- made once per lane cursor and principal by warehouse/search/access.py, so the hint asks "does any
-- hidden relevant document hold this right?" with a bit probe over a few doc_ids instead of a scan of
-- ak_acl_document per search. {source}, {kind}, {key}: literals.py literals; {max}: as access_bits.sql.
SET VARIABLE {name} = (SELECT bitstring_agg(doc_id::INTEGER, 0, {max}) FROM ak_acl_document
                       WHERE source = {source} AND grant_kind = {kind} AND grant_key = {key});
