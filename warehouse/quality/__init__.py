"""The data-quality suite (`akw quality`): great-expectations over DataFrames read from a generation's marts.

GX over DuckDB through SQLAlchemy fails upstream (metric resolution), so the marts are read into pandas
frames (one SQL file each, `sql/queries/quality_*.sql`) and validated through GX's dataframe source.
GX is imported only when the suite runs (≈2 s).
"""
