"""`akw report`: one self-contained HTML page and its Markdown twin in reports/, charts as inline SVG.

Content-free by default: counts, ids, names, codes and metrics, never indexed text, unless
`reports.snippets` is set (then recent episode titles, already redacted at extract, are shown).
"""
