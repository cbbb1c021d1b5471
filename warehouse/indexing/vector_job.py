"""Whether a build embeds units (`semantic.enabled`), and the warning when it cannot.

Enabled without the `[semantic]` extra installed, the build still publishes (the lexical index
is complete without vectors) and the run record carries KNOWLEDGE_SEMANTIC_UNAVAILABLE with the
install hint; search then reports the vector side as unavailable in every lane.
"""

from __future__ import annotations

from typing import Any

from warehouse.core import embed
from warehouse.core.settings import Settings


def semantic_job(settings: Settings, record: dict[str, Any]) -> dict[str, Any]:
    """The build job's `semantic` entry ({} when off), warning in `record` when the model is missing."""
    if not settings.semantic.enabled:
        return {}
    if not embed.installed():
        err = embed.not_installed_error()
        record.setdefault("warnings", []).append({"code": err.code, "unit": "build", "message": err.message})
        return {}
    return {"semantic": {"model": embed.model_key()}}
