"""Cards: the full picture of one agent, skill, episode or code chunk by id (spec 001 FR-5 get_*, FR-6).

A stage between search and the tools (ADR 0004): it reads the published generation read-only and,
for an episode's full text, the source through the extractor's read-only readers.
"""
