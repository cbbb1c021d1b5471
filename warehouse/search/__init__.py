"""Search: the lexical (BM25) index and its query path."""
