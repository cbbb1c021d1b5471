"""`akw bench`: build/search timings, peak RSS and index size at a data scale, beside SQLite FTS5."""
