"""Card documents (`knowledge_get_agent|skill|episode`, spec 001 FR-5/FR-6, §8.1) as pydantic models.

The models are the single source of truth for every surface: the Python API returns
`card.model_dump(mode="json")`, the CLI prints it, and `card_json_schema(kind)` is what MCP can
publish. Every field that carries indexed text (bodies, goals, answers, tool output, instructions,
snippets) holds it wrapped by `warehouse.search.snippets.untrusted()`: data, never instructions.
A text cut by `max_chars` ends with an honest marker and is listed in `truncated` with the way to
get the rest. Every claim of a task answer carries the evidence it was derived from.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

AGENT_SCHEMA = "knowledge.card.agent/v1"
SKILL_SCHEMA = "knowledge.card.skill/v1"
EPISODE_SCHEMA = "knowledge.card.episode/v1"
CODE_SCHEMA = "knowledge.card.code/v1"
MEMORY_SCHEMA = "knowledge.card.memory/v1"
KINDS: tuple[str, ...] = ("agent", "skill", "episode", "code")
DEFAULT_MAX_CHARS = 12_000  # per long text (body, answer, instructions, transcript in all)
MAX_MAX_CHARS = 2_000_000
MAX_LIST = 50  # rows per list section (episodes, uses, events); the total is always given

EvidenceKind = Literal["episode", "event", "artifact", "document", "skill", "resource", "front_matter", "body_line",
                       "ledger", "actor", "setting", "index"]


class _Card(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Evidence(_Card):
    """Where a claim can be checked: a mart row id (episode, event, document, skill, actor), a SKILL.md
    line, a resource path, a front-matter key, a ledger record or a setting."""

    kind: EvidenceKind
    id: str
    note: str | None = None


class Point(_Card):
    """One derived statement with the evidence behind it (deterministic, never an LLM)."""

    text: str
    evidence: list[Evidence] = Field(default_factory=list)


class Cut(_Card):
    """A text shortened by the budget: what was shown, how long it really is, how to get the rest."""

    field: str
    shown_chars: int
    total_chars: int
    rest: str


class Notice(_Card):
    """A coded, non-fatal note (e.g. KNOWLEDGE_SOURCE_UNAVAILABLE: the card shows what the index holds)."""

    code: str
    message: str


class Dispatch(_Card):
    mode: Literal["spawn_replica", "team_task", "external_handoff", "none"] = "none"
    available: bool = False
    reason: str


class Workspace(_Card):
    workspace_id: str | None = None
    path: str | None = None
    episodes: int = 0


# -- agent -------------------------------------------------------------------------------------
class AgentEpisode(_Card):
    episode_id: str
    title: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    outcome: str
    workspace: str | None = None
    evidence_ref: str
    evidence: list[Evidence] = Field(default_factory=list)
    task_terms: list[str] = Field(default_factory=list)  # task words this episode's title/goal shares


class AgentSkill(_Card):
    name: str
    uses: int
    last_used_at: str | None = None
    successes: int = 0
    skill_id: str | None = None


class Participation(_Card):
    episode_id: str | None = None
    run_id: str
    role: str | None = None
    assignment: str | None = None
    outcome: str | None = None
    attempts: int | None = None
    failed_attempts: int | None = None


class AgentStats(_Card):
    episodes: int
    successes: int
    partials: int
    failures: int
    success_rate: float | None = None
    tool_calls: int
    participations: int


class AgentCard(_Card):
    schema_: Literal["knowledge.card.agent/v1"] = Field(default=AGENT_SCHEMA, alias="schema")
    index_rev: str
    actor_id: str
    kind: str
    source: str
    display_name: str | None = None
    description: str | None = None
    instructions: str | None = None
    parent_session_id: str | None = None
    sessions: list[str] = Field(default_factory=list)
    workspaces: list[Workspace] = Field(default_factory=list)
    models: list[str] = Field(default_factory=list)
    first_activity: str | None = None
    last_activity: str | None = None
    stats: AgentStats
    dispatch: Dispatch
    skills: list[AgentSkill] = Field(default_factory=list)
    episodes: list[AgentEpisode] = Field(default_factory=list)
    episodes_total: int = 0
    participations: list[Participation] = Field(default_factory=list)
    task: str | None = None
    task_fit: list[Point] = Field(default_factory=list)
    truncated: list[Cut] = Field(default_factory=list)
    notices: list[Notice] = Field(default_factory=list)


# -- skill -------------------------------------------------------------------------------------
class SkillSource(_Card):
    root_kind: str
    root_path: str | None = None
    workspace_id: str | None = None
    account: str | None = None
    path: str | None = None
    rel_dir: str | None = None


class Resource(_Card):
    path: str
    size: int | None = None
    sha256: str | None = None
    kind: Literal["text", "binary"]
    role: str  # script | reference | asset | template | license | other (from its folder/name)
    mentioned: bool = False  # SKILL.md names it


class VersionEvent(_Card):
    event: Literal["current", "deployed", "removed", "copy"]
    version: str | None = None
    content_hash: str | None = None
    at: str | None = None
    skill_id: str
    source: str
    note: str | None = None


class Version(_Card):
    version: str | None = None
    content_hash: str | None = None
    size: int | None = None
    status: str
    removed_at: str | None = None
    deployed_at: str | None = None
    ledger_sha256: str | None = None
    ledger_matches: bool | None = None
    bundles: list[str] = Field(default_factory=list)
    history: list[VersionEvent] = Field(default_factory=list)


class SkillUse(_Card):
    episode_id: str
    actor_id: str | None = None
    time: str | None = None
    outcome: str
    via: str
    evidence: Evidence


class SkillUsage(_Card):
    uses: int
    actors: int
    first_used_at: str | None = None
    last_used_at: str | None = None
    outcomes: dict[str, int] = Field(default_factory=dict)
    by_actor: list[AgentSkillUser] = Field(default_factory=list)
    recent: list[SkillUse] = Field(default_factory=list)
    uses_of_same_name_elsewhere: int = 0  # uses the index resolved to another copy of this name


class AgentSkillUser(_Card):
    actor_id: str
    display_name: str | None = None
    uses: int
    last_used_at: str | None = None


class Related(_Card):
    name: str
    skill_id: str
    source: str
    relation: Literal["duplicate", "conflict", "co_used", "bundle"]
    note: str
    content_hash: str | None = None


class Provenance(_Card):
    origin: str
    path: str | None = None
    content_hash: str | None = None
    verify: list[str] = Field(default_factory=list)
    indexed_in: str


class TaskAnswer(_Card):
    """FR-6 with `task`: what to apply, what to avoid, which steps, each with its evidence."""

    task: str
    terms: list[str] = Field(default_factory=list)
    matched_terms: list[str] = Field(default_factory=list)
    applicability: list[Point] = Field(default_factory=list)
    limits: list[Point] = Field(default_factory=list)
    typical_errors: list[Point] = Field(default_factory=list)
    checklist: list[Point] = Field(default_factory=list)


class SkillCard(_Card):
    schema_: Literal["knowledge.card.skill/v1"] = Field(default=SKILL_SCHEMA, alias="schema")
    index_rev: str
    skill_id: str
    name: str
    source: SkillSource
    status: str
    description: str | None = None
    when_to_use: str | None = None
    disable_model_invocation: bool | None = None
    user_invocable: bool | None = None
    license: str | None = None
    allowed_tools: list[str] = Field(default_factory=list)
    front_matter: dict[str, Any] | None = None
    body: str | None = None
    body_chars: int = 0
    resources: list[Resource] = Field(default_factory=list)
    missing_references: list[str] = Field(default_factory=list)
    version: Version
    usage: SkillUsage
    related: list[Related] = Field(default_factory=list)
    provenance: Provenance
    task_answer: TaskAnswer | None = None
    truncated: list[Cut] = Field(default_factory=list)
    notices: list[Notice] = Field(default_factory=list)


# -- episode -----------------------------------------------------------------------------------
class Focus(_Card):
    id: str
    session_id: str | None = None
    seq: int | None = None


class Actor(_Card):
    actor_id: str | None = None
    display_name: str | None = None
    kind: str | None = None


class Step(_Card):
    text: str
    status: str | None = None


class Constraints(_Card):
    todos: list[Step] = Field(default_factory=list)
    plan: list[Step] = Field(default_factory=list)
    goal_changes: list[Step] = Field(default_factory=list)


class ToolCount(_Card):
    name: str
    calls: int


class Actions(_Card):
    tool_calls: int = 0
    tools: list[ToolCount] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    commands: list[str] = Field(default_factory=list)


class Artifact(_Card):
    path: str
    change: str | None = None
    kind: str
    seq: int | None = None
    description: str | None = None
    evidence: Evidence


class Result(_Card):
    outcome: str
    status: str | None = None
    final_answer: str | None = None
    deliverables: list[Artifact] = Field(default_factory=list)
    workspace_changes: list[Artifact] = Field(default_factory=list)


class ErrorEvent(_Card):
    seq: int | None = None
    tool: str | None = None
    text: str | None = None
    evidence: Evidence


class Retry(_Card):
    tool: str
    failed_seq: int
    retry_seq: int
    evidence: list[Evidence]


class EpisodeSkill(_Card):
    name: str
    via: str
    seq: int | None = None
    skill_id: str | None = None


class Participant(_Card):
    name: str
    actor_id: str | None = None
    role: str | None = None
    outcome: str | None = None


class SourceRefs(_Card):
    evidence_ref: str
    session_id: str
    seq_first: int | None = None
    seq_last: int | None = None
    account: str | None = None
    run_id: str | None = None
    entry_ids: list[str] = Field(default_factory=list)
    log_path: str | None = None


class SourceRead(_Card):
    """Where the transcript came from: the source itself (read now, read-only) or, when the source is
    gone, the index (`notices` carries KNOWLEDGE_SOURCE_UNAVAILABLE)."""

    read_from: Literal["source", "index"]
    available: bool
    code: str | None = None


class TranscriptEvent(_Card):
    seq: int | None = None
    time: str | None = None
    role: str
    kind: str | None = None
    tool: str | None = None
    is_error: bool | None = None
    text: str | None = None


class EpisodeCard(_Card):
    schema_: Literal["knowledge.card.episode/v1"] = Field(default=EPISODE_SCHEMA, alias="schema")
    index_rev: str
    episode_id: str
    opened_as: str
    focus: Focus | None = None
    source: str
    actor: Actor
    workspace: Workspace | None = None
    title: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    duration_s: float | None = None
    model: str | None = None
    goal: str | None = None
    constraints: Constraints
    actions: Actions
    result: Result
    errors: list[ErrorEvent] = Field(default_factory=list)
    retries: list[Retry] = Field(default_factory=list)
    compactions: int = 0
    skills: list[EpisodeSkill] = Field(default_factory=list)
    participants: list[Participant] = Field(default_factory=list)
    artifacts: list[Artifact] = Field(default_factory=list)
    memories: list[Evidence] = Field(default_factory=list)
    source_refs: SourceRefs
    source_read: SourceRead
    transcript: list[TranscriptEvent] = Field(default_factory=list)
    transcript_total: int = 0
    truncated: list[Cut] = Field(default_factory=list)
    notices: list[Notice] = Field(default_factory=list)


# -- code chunk, memory (ids of search items that are neither episodes nor skills) --------------
class CodeCard(_Card):
    schema_: Literal["knowledge.card.code/v1"] = Field(default=CODE_SCHEMA, alias="schema")
    index_rev: str
    id: str
    path: str
    start_line: int | None = None
    end_line: int | None = None
    workspace: Workspace | None = None
    language: str | None = None
    symbol: str | None = None
    source_kind: str | None = None
    text: str | None = None
    neighbours: list[Evidence] = Field(default_factory=list)
    truncated: list[Cut] = Field(default_factory=list)


class MemoryCard(_Card):
    """A memory whose source entry belongs to no indexed episode: what the index holds about it."""

    schema_: Literal["knowledge.card.memory/v1"] = Field(default=MEMORY_SCHEMA, alias="schema")
    index_rev: str
    id: str
    memory_key: str | None = None
    title: str | None = None
    text: str | None = None
    lifecycle: str | None = None
    is_current: bool | None = None
    source_session_id: str | None = None
    source_entry_id: str | None = None
    truncated: list[Cut] = Field(default_factory=list)
    notices: list[Notice] = Field(default_factory=list)


SkillUsage.model_rebuild()

CARD_MODELS: dict[str, type[BaseModel]] = {"agent": AgentCard, "skill": SkillCard, "episode": EpisodeCard,
                                           "code": CodeCard, "memory": MemoryCard}


def card_dict(card: BaseModel) -> dict[str, Any]:
    return card.model_dump(mode="json", by_alias=True)


def card_json_schema(kind: str) -> dict[str, Any]:
    """The draft 2020-12 schema of one card kind (what an MCP surface publishes)."""
    schema = CARD_MODELS[kind].model_json_schema(by_alias=True)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
