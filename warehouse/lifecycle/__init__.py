"""The warehouse's lifecycle over its own files: forget one item without residue, delete the index.

Above the build (forget rebuilds the generation) and below the API (ADR 0008).
"""
