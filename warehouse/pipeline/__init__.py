"""The reindex pipeline: extract → push (team lake) → index build → publish → curation.

A layer of its own above extract and indexing, so neither stage runs the other.
"""
