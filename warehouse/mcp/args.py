"""Argument contracts of the tools that have no request document of their own (pydantic; schemas.py publishes them).

`knowledge_search` and `knowledge_dispatch` take their contracts' request documents as they are
(`SearchRequest`, `DispatchRequest`); the others take these small models. Every model forbids
unknown arguments, so a location or identity can never be slipped in as one.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from warehouse.core.errors import Code, KnowledgeError, refusing_hostile_input


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class StatusArgs(_Args):
    pass


class GetAgentArgs(_Args):
    id: str = Field(min_length=1, max_length=500, description="actor id from a search response (actors[].actor_id)")
    task: str | None = Field(default=None, max_length=2000, description="answer this task against the agent")
    max_chars: int | None = Field(default=None, ge=200, le=100000, description="cut long texts (default 12000)")


class GetSkillArgs(_Args):
    name: str = Field(min_length=1, max_length=500, description="skill name or skill id from a search response")
    source: str | None = Field(default=None, max_length=500,
                               description="which root when several hold the name (skill id, root kind, account)")
    task: str | None = Field(default=None, max_length=2000,
                             description="answer this task: applicability, limits, typical errors, checklist")
    max_chars: int | None = Field(default=None, ge=200, le=100000, description="cut long texts (default 12000)")


class GetEpisodeArgs(_Args):
    id: str = Field(min_length=1, max_length=500, description="episode/evidence id from a search response")
    max_chars: int | None = Field(default=None, ge=200, le=100000, description="cut long texts (default 12000)")


class GetCodeArgs(_Args):
    id: str = Field(min_length=1, max_length=500, description="code item id from a search (lanes.code.items[].id)")
    max_chars: int | None = Field(default=None, ge=200, le=100000, description="cut long texts (default 12000)")


class ReindexArgs(_Args):
    mode: Literal["incremental", "full", "verify"] = Field(
        default="incremental", description="incremental: changed sources only; full: rebuild everything; "
        "verify: check the published index, change nothing")


class ForgetArgs(_Args):
    kind: Literal["session", "actor", "skill", "workspace", "all"] = Field(
        description="what `id` names; all: the whole index (id '*')")
    id: str = Field(min_length=1, max_length=500, description="the id of what to forget ('*' with kind=all)")
    confirm: bool = Field(default=False, description="true removes; false only reports what would be removed")


class FeedbackArgs(_Args):
    result_id: str = Field(min_length=1, max_length=500, description="an item or actor id a search returned")
    useful: bool = Field(description="true: the result helped; false: it did not")
    request_id: str | None = Field(default=None, max_length=200, description="the search's request_id")
    chosen: str | None = Field(default=None, max_length=500, description="the id the caller went with")


def parse_args(model: type[_Args], data: dict[str, Any]) -> _Args:
    """Validate tool arguments; a problem is `KNOWLEDGE_INVALID_REQUEST` naming the field (never its value)."""
    try:
        with refusing_hostile_input():
            return model.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "$"
        text = "unknown argument" if err["type"] == "extra_forbidden" else err["msg"]
        raise KnowledgeError(Code.INVALID_REQUEST, f"{field}: {text}", field=field) from None
