"""The SQL of the warehouse (the design card's top-level `sql/`), shipped as `warehouse.sql` package data.

`models/` (staging → intermediate → marts, one model per file), `build/` (the lexical-index steps) and
`queries/` (the statements the search, cards and dispatch run). `warehouse.core.sqlfiles` reads them.
"""
