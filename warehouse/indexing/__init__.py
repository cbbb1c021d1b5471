"""The index build: lake → models (staging → marts) → lexical index → vectors → a generation file.

Run in a child process (`spawn`, `child`) so a failed or killed build leaves the published generation
untouched; `index_rev` names what was built, `verify` checks it.
"""
