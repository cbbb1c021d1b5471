"""The shared team lake (ADR 0013): bronze units of many writers in DuckLake, its catalog in PostgreSQL.

The local Parquet lake stays the machine's staging area (redacted, per-machine cursors); `push` copies
changed units into DuckLake, `snapshot` exports one catalog snapshot as a lake the build reads.
"""
