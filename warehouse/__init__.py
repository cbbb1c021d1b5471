"""Agent Knowledge Warehouse: a local, read-only knowledge warehouse over the work of AI agents."""

__version__ = "0.1.0"
