"""`knowledge_dispatch` v1: target choice, context pack, handoff package, the outbox (above search)."""
