"""The ground floor: locations, settings, errors, redaction, DuckDB, literals, SQL files, tokenizer.

Imported by every stage above; imports nothing of the warehouse but itself.
"""
