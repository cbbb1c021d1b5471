"""`knowledge_search` v1 request/response models (contract 000 §3–§4, schema seeds/003).

These pydantic models are the single source of truth: every surface (today the CLI and the
Python API) parses requests with `parse_request` and prints responses with `dump_response`,
and `response_json_schema()` is what we publish. Every model forbids unknown fields, so a
typo is a `KNOWLEDGE_INVALID_REQUEST` (never a silent default) and a lane item can never
carry the other lane's locator (an episode has no `path`, a code chunk no `session_id`).
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

from warehouse.core.errors import Code, KnowledgeError
from warehouse.search.access import refuse_identity_fields
from warehouse.search.messages import msg

SCHEMA = "knowledge.search/v1"
LANES: tuple[str, ...] = ("episodes", "code", "skills")  # also the lane priority of §4.1 (10)
MODES: tuple[str, ...] = ("auto", "find_agent", "find_skill", "find_code", "find_knowledge")
INTENTS: tuple[str, ...] = MODES[1:]
MAX_QUERY_CHARS = 2000

LaneName = Literal["episodes", "code", "skills"]
Mode = Literal["auto", "find_agent", "find_skill", "find_code", "find_knowledge"]
Intent = Literal["find_agent", "find_skill", "find_code", "find_knowledge"]

_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


def _rfc3339(value: Any) -> Any:
    """RFC3339 with an explicit offset only: a naive time would silently mean 'local'."""
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise PydanticCustomError("rfc3339", msg("request.no_offset", "en"))
        return value
    if not isinstance(value, str) or not _RFC3339.fullmatch(value):
        raise PydanticCustomError("rfc3339", msg("request.not_rfc3339", "en"))
    try:
        return datetime.fromisoformat(value.replace("z", "Z").replace("t", "T"))
    except ValueError:
        raise PydanticCustomError("rfc3339", msg("request.bad_datetime", "en")) from None


Rfc3339 = Annotated[datetime | None, BeforeValidator(_rfc3339)]


# -- request -----------------------------------------------------------------------------------
class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True, frozen=True)


class Filters(_In):
    workspaces: list[str] = Field(default_factory=list)
    session_ids: list[str] = Field(default_factory=list)
    actor_ids: list[str] = Field(default_factory=list)
    since: Rfc3339 = None
    until: Rfc3339 = None
    outcome: Literal["success", "failure", "any"] = "any"
    skills: list[str] = Field(default_factory=list)
    paths: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _ordered(self) -> Filters:
        if self.since and self.until and self.until < self.since:
            raise PydanticCustomError("range", msg("request.until_before_since", "en"), {"field": "until"})
        return self


class RequestBudget(_In):
    max_tokens: int = Field(default=4000, ge=500, le=20000)
    snippet_chars: int = Field(default=240, ge=80, le=1000)


class SearchRequest(_In):
    schema_: Literal["knowledge.search/v1"] = Field(alias="schema")
    request_id: str | None = Field(default=None, max_length=200)
    query: str
    mode: Mode = "auto"
    filters: Filters = Field(default_factory=Filters)
    include: list[LaneName] = Field(default_factory=lambda: list(LANES), min_length=1)
    limit: int = Field(default=10, ge=1, le=50)
    budget: RequestBudget = Field(default_factory=RequestBudget)
    provenance: Literal["strict", "locator"] = "strict"
    trace: bool = False

    @field_validator("query")
    @classmethod
    def _query(cls, v: str) -> str:
        """A literal of 1..2000 characters; stored stripped so routing and echo agree."""
        if "\x00" in v:
            raise PydanticCustomError("nul", msg("request.nul", "en"))
        v = v.strip()
        if not v:
            raise PydanticCustomError("empty", msg("request.blank", "en"))
        if len(v) > MAX_QUERY_CHARS:
            raise PydanticCustomError("too_long", msg("request.too_long", "en", chars=MAX_QUERY_CHARS))
        return v

    @field_validator("include")
    @classmethod
    def _include(cls, v: list[str]) -> list[str]:
        """Duplicates collapse; order becomes the canonical lane order (deterministic output)."""
        return [lane for lane in LANES if lane in v]


def parse_request(data: dict[str, Any] | str) -> SearchRequest:
    """Validate a request; any problem is `KNOWLEDGE_INVALID_REQUEST` naming the dotted field."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as e:
            raise KnowledgeError(Code.INVALID_REQUEST, msg("request.not_json", "en", line=e.lineno),
                                 field="$") from None
    if not isinstance(data, dict):
        raise KnowledgeError(Code.INVALID_REQUEST, msg("request.not_object", "en"), field="$")
    refuse_identity_fields(data)
    try:
        return SearchRequest.model_validate(data)
    except ValidationError as e:
        raise _invalid(e) from None


def _invalid(e: ValidationError) -> KnowledgeError:
    """First error (pydantic orders them by field) → dotted path; the input value is never echoed."""
    err = e.errors(include_input=False, include_url=False)[0]
    parts = [str(p) for p in err["loc"] if not isinstance(p, int)]
    extra = (err.get("ctx") or {}).get("field")
    if extra:
        parts.append(str(extra))
    field = ".".join(parts) or "$"
    index = next((p for p in err["loc"] if isinstance(p, int)), None)
    where = f"{field}[{index}]" if index is not None else field
    text = err["msg"]
    if err["type"] == "extra_forbidden":
        text = msg("request.unknown_field", "en")
    elif err["type"] == "missing":
        text = msg("request.required", "en")
    return KnowledgeError(Code.INVALID_REQUEST, f"{where}: {text}", field=field)


# -- response ----------------------------------------------------------------------------------
def _schema_required(schema: dict[str, Any], cls: type[BaseModel]) -> None:
    """Publish as `required` exactly the fields `dump_response` always emits."""
    keep = getattr(cls, "_keep_none", frozenset())
    required = []
    for name, f in cls.model_fields.items():
        if f.is_required() or f.default is not None or f.default_factory is not None or name in keep:
            required.append(f.alias or name)
    schema["required"] = required


class _Out(BaseModel):
    """Response base: None is omitted unless the field is in `_keep_none` (required or meaningful null)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, json_schema_extra=_schema_required)
    _keep_none: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        for name, f in type(self).model_fields.items():
            if getattr(self, name) is None and name not in self._keep_none:
                data.pop(f.alias or name, None)
                data.pop(name, None)
        return data


class Routing(_Out):
    intent: Intent
    lanes: list[LaneName]
    confidence: float = Field(ge=0, le=1)
    reason: str
    weights: dict[str, float] | None = None  # per-lane fusion weights of §6 (restricted to `lanes`)


class EpisodeSession(_Out):
    cwd: str | None = None
    workspace: str | None = None
    created_at: str | None = None
    agent_preset: str | None = None
    title: str | None = None
    outcome: str | None = None
    live: bool | None = None
    persisted: bool | None = None


class ItemActor(_Out):
    """Who did an episode: `id` is ak_actor.actor_id, `name` its display name."""

    id: str
    name: str | None = None


class EpisodeItem(_Out):
    id: str  # ak_episode.episode_id (a memory: ak_memory.memory_key); docs/search.md "Ids"
    session_id: str
    seq: int = Field(ge=0)
    event_type: str
    event_id: str | None = None  # the matched event: ak_event.event_id (ev:<session>:<seq>, AutoClaw: ev:<account>:…)
    actor: ItemActor | None = None
    time: str | None = None
    surface: str | None = None
    snippet: str | None = None
    session: EpisodeSession | None = None
    score: float | None = None
    why: list[str] = Field(default_factory=list)


class LaneSemantic(_Out):
    """Whether a lane's vector side answered (only with semantic.enabled; absent when it is off)."""

    state: Literal["answered", "no_vectors", "unavailable", "failed", "timed_out"]
    model: str | None = None
    hits: int | None = None
    reason: str | None = None


class EpisodeLane(_Out):
    _keep_none = frozenset({"degradation_reason"})
    source: Literal["harness.session-query"] = "harness.session-query"
    backend: str | None = None  # who actually served the lane, e.g. "akw.episode-index"
    index_rev: str
    observed_at: str | None = None
    degraded: bool = False
    degradation_reason: str | None = None
    counts: dict[str, int] | None = None
    semantic: LaneSemantic | None = None
    items: list[EpisodeItem] = Field(default_factory=list)


class CodeItem(_Out):
    id: str
    chunk_id: str | None = None
    path: str
    start_line: int = Field(ge=1)
    end_line: int | None = None
    workspace: str | None = None
    language: str | None = None
    symbol: str | None = None
    source_kind: str | None = None
    provenance: Literal["stated", "derived", "unknown"] = "unknown"
    score: float | None = None
    why: list[str] = Field(default_factory=list)
    snippet: str | None = None


class Freshness(_Out):
    stale: bool = False
    verified_by: str | None = None


class CodeLane(_Out):
    _keep_none = frozenset({"index_rev", "degradation_reason"})
    source: Literal["ragraf"] = "ragraf"  # schema const; `backend` names the real origin
    backend: str | None = None  # e.g. "akw.code-index"
    index_rev: str | None
    capability: Literal["full", "degraded", "partial", "unknown"] = "unknown"
    freshness: Freshness | None = None
    degraded: bool = False
    degradation_reason: str | None = None
    semantic: LaneSemantic | None = None
    items: list[CodeItem] = Field(default_factory=list)


class UsedBy(_Out):
    actor_id: str
    episode_id: str | None = None
    uses: int | None = None


class SkillItem(_Out):
    id: str | None = None  # evidence/budget key; falls back to `name` (see `item_key`)
    name: str
    path: str | None = None
    description: str | None = None
    when_to_use: str | None = None
    content_hash: str | None = None
    score: float | None = None
    why: list[str] = Field(default_factory=list)
    used_by: list[UsedBy] = Field(default_factory=list)


class SkillLane(_Out):
    _keep_none = frozenset({"degradation_reason"})
    source: str = "akw.skills"
    backend: str | None = None
    index_rev: str
    degraded: bool = False
    degradation_reason: str | None = None
    semantic: LaneSemantic | None = None
    items: list[SkillItem] = Field(default_factory=list)


class Lanes(_Out):
    episodes: EpisodeLane
    code: CodeLane
    skills: SkillLane | None = None


class ActorEvidence(_Out):
    lane: LaneName
    id: str


class ActorSkill(_Out):
    name: str
    uses: int = Field(ge=0)


class ActorDispatch(_Out):
    mode: Literal["spawn_replica", "team_task", "external_handoff", "none"] = "none"
    available: bool = False


class Actor(_Out):
    _keep_none = frozenset({"name"})
    actor_id: str
    name: str | None = None  # what the actor is: "standard agent · shop-api", "verify-admin · infra-ops", "DB Guardian"
    context: str | None = None  # the title of its first session (DSH actors), not part of the name
    description: str | None = None  # what it is for (saved agent, team member, subagent), cut short
    kind: Literal["root_session", "subagent", "team_member", "autoclaw_agent", "unknown"] = "unknown"
    source: Literal["harness", "autoclaw"]
    confidence: float | None = Field(default=None, ge=0, le=1)
    score: float | None = None
    why: list[str] = Field(default_factory=list)
    evidence: list[ActorEvidence] = Field(default_factory=list)
    skills: list[ActorSkill] = Field(default_factory=list)
    dispatch: ActorDispatch | None = None


class Fusion(_Out):
    strategy: Literal["rrf"] = "rrf"
    k: int = Field(default=60, ge=1)
    weights: dict[str, float] = Field(default_factory=dict)
    dedup: str = "by id"
    # a digest of the feedback scores that ranked this answer (docs/search.md "Feedback"); absent without any
    feedback_rev: str | None = Field(default=None, max_length=64)
    # a digest of the trust prior that ranked this answer (docs/search.md "Trust prior"); absent without ak_trust
    trust_rev: str | None = Field(default=None, max_length=64)


class BudgetUse(_Out):
    max_tokens: int
    used_tokens: int


class Dropped(_Out):
    """What the budget removed from one lane: `ids` in drop order (worst first).

    `ids` is omitted (and `ids_omitted` set) only when even the list of ids would not fit the
    budget; `count` is always exact.
    """

    lane: Literal["episodes", "code", "skills", "actors"]
    what: Literal["snippet", "item"]
    count: int = Field(ge=1)
    ids: list[str] = Field(default_factory=list)
    ids_omitted: bool | None = None


class Limits(_Out):
    requested: int = Field(default=10, ge=1)
    returned: int = Field(default=0, ge=0)  # lane items across all lanes (actors not counted)
    truncated: bool = False
    budget: BudgetUse | None = None
    dropped: list[Dropped] = Field(default_factory=list)


class LaneWarning(_Out):  # `Warning` in the contract's schema (`response_json_schema` names it so)
    code: str
    lane: str
    message: str


class ErrorItem(_Out):
    code: str
    lane: str | None = None
    message: str
    retryable: bool | None = None


class TraceLane(_Out):
    lane: str
    ms: float
    items: int
    degraded: bool
    cache_hit: bool = False


class Trace(_Out):
    """Timings and counters only: never query text or snippets (§11)."""

    lanes: list[TraceLane] = Field(default_factory=list)
    total_ms: float | None = None


class HiddenHint(_Out):
    """Content-free (seed 004): a relevant item exists that the caller cannot see, in `system`, seen by
    `author_principal` (whom to ask). No title, snippet, id or count — one entry per (system, author)."""

    system: Literal["harness", "autoclaw", "skills", "code"]
    author_principal: str | None = None


class AnswerMatch(_Out):
    """How strong the answer is as a whole (search/match.py, docs/search.md "Match"): `strong` — evidence
    covers the query; `weak` — real evidence, but little of it (a KNOWLEDGE_WEAK_MATCH warning says why);
    `none` — nothing good enough: found=false, no items and no actors (KNOWLEDGE_NO_GOOD_MATCH says why).
    Not the router's `routing.confidence`, which is how sure it is of the question's intent."""

    level: Literal["strong", "weak", "none"]
    similarity: float | None = None  # the best item's similarity to the query (semantic side answering)
    coverage: float | None = None  # the best item's idf-weighted share of the query's words
    unknown_terms: list[str] | None = None  # the query's words no indexed document contains, that name a thing


class SearchResponse(_Out):
    _keep_none = frozenset()
    schema_: Literal["knowledge.search/v1"] = Field(default=SCHEMA, alias="schema")
    request_id: str | None = Field(default=None, max_length=200)
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    found: bool = True
    match: AnswerMatch | None = None
    routing: Routing
    lanes: Lanes
    actors: list[Actor] = Field(default_factory=list)
    fusion: Fusion = Field(default_factory=Fusion)
    limits: Limits = Field(default_factory=Limits)
    warnings: list[LaneWarning] = Field(default_factory=list)
    errors: list[ErrorItem] = Field(default_factory=list)
    hidden: list[HiddenHint] | None = None  # only under access control, and only when something is hidden
    trace: Trace | None = None


LaneItem = EpisodeItem | CodeItem | SkillItem


def item_key(item: LaneItem) -> str:
    """The id evidence and `limits.dropped` use; a skill without an id is keyed by its name."""
    if isinstance(item, SkillItem):
        return item.id or item.name
    return item.id


def lane_items(resp: SearchResponse) -> dict[str, list[LaneItem]]:
    """Items per present lane, in lane priority order."""
    out: dict[str, list[LaneItem]] = {"episodes": list(resp.lanes.episodes.items),
                                      "code": list(resp.lanes.code.items)}
    if resp.lanes.skills is not None:
        out["skills"] = list(resp.lanes.skills.items)
    return out


def invariant_violations(resp: SearchResponse) -> list[str]:
    """§4.1 checks the models cannot express alone (dangling evidence, duplicate ids, counts)."""
    problems: list[str] = []
    keys: dict[str, set[str]] = {}
    for lane, items in lane_items(resp).items():
        seen = [item_key(i) for i in items]
        keys[lane] = set(seen)
        if len(seen) != len(keys[lane]):
            problems.append(f"lanes.{lane}: duplicate item ids")
    for actor in resp.actors:
        for ev in actor.evidence:
            if ev.id not in keys.get(ev.lane, set()):
                problems.append(f"actors[{actor.actor_id}].evidence: {ev.lane}/{ev.id} is not in the response")
    if resp.limits.truncated and not resp.limits.dropped:
        problems.append("limits.truncated is true but nothing is listed in limits.dropped")
    return problems


# -- serialisation -----------------------------------------------------------------------------
def response_dict(resp: SearchResponse) -> dict[str, Any]:
    """The JSON-ready dict `dump_response` serialises (aliases applied, absent Nones omitted)."""
    return resp.model_dump(mode="json", by_alias=True)


def dumps(data: dict[str, Any]) -> str:
    """Canonical JSON text: sorted keys, UTF-8 kept, compact separators (stable bytes → stable tokens)."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def dump_response(resp: SearchResponse) -> str:
    return dumps(response_dict(resp))


_CONTRACT_NAMES = {"LaneWarning": "Warning"}  # class names that would shadow a builtin -> the seed's names


def _contract_names(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with the seed's definition names (`$defs/Warning`), not the Python class names."""
    text = json.dumps(schema)
    for ours, theirs in _CONTRACT_NAMES.items():
        text = text.replace(f'"#/$defs/{ours}"', f'"#/$defs/{theirs}"').replace(f'"{ours}"', f'"{theirs}"')
    return json.loads(text)


def response_json_schema() -> dict[str, Any]:
    """The draft 2020-12 schema of what `dump_response` emits (compatible with seeds/003)."""
    schema = _contract_names(SearchResponse.model_json_schema(by_alias=True, mode="validation"))
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://akw.local/contracts/knowledge_search.v1.schema.json",
            "title": "knowledge_search v1", **{k: v for k, v in schema.items() if k != "title"}}


def request_json_schema() -> dict[str, Any]:
    schema = SearchRequest.model_json_schema(by_alias=True, mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
