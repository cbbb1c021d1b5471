"""The golden set: YAML queries whose right answers are selectors over the generator's manifest.

Ids in generated data depend on the seed, so a query never names a session or actor id; its
`expect` names *what* the answer is (tasks of a template, code that mentions an identifier, a
skill) and `resolve` turns that into ids using `manifest.json` — the ground truth the generator
wrote, never the system's output. Format and selector semantics: golden/README.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from warehouse.core.yaml_load import safe_load as yaml_safe_load

SCHEMA = "akw.golden/v1"
KINDS = ("uj1_who", "uj2_skill", "uj4_knowledge", "find_code", "identifier", "filter", "empty", "real_skill",
         "skill_paraphrase", "agent_description")
LISTS = ("actors", "episodes", "skills", "code")
SLICES = ("synthetic", "real_skills", "cross_lingual", "real_data", "real_transcripts", "real_agents")
Slice = Literal["synthetic", "real_skills", "cross_lingual", "real_data", "real_transcripts", "real_agents"]

Kind = Literal["uj1_who", "uj2_skill", "uj4_knowledge", "find_code", "identifier", "filter", "empty", "real_skill",
               "skill_paraphrase", "agent_description"]
REAL_DATA_SELECTORS = ("actors_of", "sessions_of", "sessions_mentioning", "empty")  # what its manifest holds
# the real transcripts' home (fixtures/realdata/transcripts.py) also holds the real skill collections
REAL_TRANSCRIPT_SELECTORS = (*REAL_DATA_SELECTORS, "skills")
REAL_SKILL_SLICES = ("real_skills", "real_transcripts")  # slices judged against the real skill names
Outcome = Literal["success", "partial", "failure"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TaskFilter(_Strict):
    """Which manifest tasks a selector means; every given field must match (deleted tasks never do)."""

    template: str | list[str]
    outcome: Outcome | list[Outcome] | None = None
    language: Literal["ru", "en"] | None = None
    workspace: str | None = None  # a workspace *name* (infra-ops), not the seed-dependent id
    source: Literal["harness", "autoclaw"] | None = None
    since: datetime | None = None  # task started_at >= since
    until: datetime | None = None


class Expect(_Strict):
    actors_of: TaskFilter | None = None
    actors_named: list[str] | None = Field(default=None, min_length=1)  # manifest actor names (roles)
    sessions_of: TaskFilter | None = None
    sessions_mentioning: str | None = None
    skills: list[str] | None = Field(default=None, min_length=1)
    code_mentioning: str | None = None
    code_defining: str | None = None
    code_paths: list[str] | None = Field(default=None, min_length=1)  # "<workspace name>:<relative path>"
    empty: Literal[True] | None = None

    @model_validator(mode="after")
    def _one(self) -> Expect:
        given = [k for k, v in self.__dict__.items() if v is not None]
        if len(given) != 1:
            raise ValueError(f"expect needs exactly one selector, got {given or 'none'}")
        return self

    @property
    def selector(self) -> str:
        return next(k for k, v in self.__dict__.items() if v is not None)


class GoldenFilters(_Strict):
    """Request filters; `workspaces` holds workspace names resolved to ids at eval time."""

    workspaces: list[str] = Field(default_factory=list)
    outcome: Literal["success", "failure", "any"] | None = None
    since: str | None = None
    until: str | None = None
    skills: list[str] = Field(default_factory=list)
    paths: list[str] = Field(default_factory=list)


class GoldenQuery(_Strict):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)  # `slice` or `slice_`
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    lang: Literal["ru", "en"]
    kind: Kind
    text: str = Field(min_length=1, max_length=2000)
    mode: Literal["auto", "find_agent", "find_skill", "find_code", "find_knowledge"] = "auto"
    filters: GoldenFilters | None = None
    expect: Expect
    note: str | None = None
    # the slice the report groups it in; default: real_skills for kind real_skill, else synthetic.
    # cross_lingual = a query in one language about work logged only in the other (same home);
    # real_data = a query about the real SWE-agent trajectories, run on their own converted home
    # and resolved against that home's manifest (fixtures/realdata)
    slice_: Slice | None = Field(default=None, alias="slice")
    # real_agents = a query about the real Claude Code and Codex sessions (../shared/realdata/agents), run on
    # a home that reads them in their tools' layout (fixtures/realdata/agents.py)
    # real_transcripts, real_agents: the half a query belongs to (thresholds are calibrated on `calibrate` and
    # reported on `holdout`), and whether it asks about the first request or a detail deeper in the work
    split: Literal["calibrate", "holdout"] | None = None
    depth: Literal["request", "detail"] | None = None

    @model_validator(mode="after")
    def _kind_matches(self) -> GoldenQuery:
        if (self.kind == "empty") != (self.expect.empty is True):
            raise ValueError("kind 'empty' and expect {empty: true} go together")
        if self.kind in ("real_skill", "skill_paraphrase") and self.expect.skills is None:
            raise ValueError(f"a {self.kind} query expects {{skills: [...]}}")
        if self.kind == "real_skill" and self.slice != "real_skills":
            raise ValueError("a real_skill query is in the real_skills slice")
        if self.slice == "real_skills" and self.kind not in ("real_skill", "skill_paraphrase"):
            raise ValueError("only real_skill and skill_paraphrase queries run on the real-skills home")
        if self.slice == "real_data" and self.expect.selector not in REAL_DATA_SELECTORS:
            raise ValueError(f"a real_data query expects one of {', '.join(REAL_DATA_SELECTORS)}")
        if self.slice in ("real_transcripts", "real_agents"):
            if self.expect.selector not in REAL_TRANSCRIPT_SELECTORS:
                raise ValueError(f"a {self.slice} query expects one of {', '.join(REAL_TRANSCRIPT_SELECTORS)}")
            if self.split is None or self.depth is None:
                raise ValueError(f"a {self.slice} query says its split and depth")
        return self

    @property
    def slice(self) -> str:
        """real_skills: run on the home with the real skill collections, judged against their names."""
        return self.slice_ or ("real_skills" if self.kind == "real_skill" else "synthetic")


class GoldenSet(_Strict):
    schema_: Literal["akw.golden/v1"] = Field(alias="schema")
    queries: list[GoldenQuery] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> GoldenSet:
        ids = [q.id for q in self.queries]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"duplicate query ids: {dup}")
        return self


def golden_files(path: Path) -> list[Path]:
    """A golden file, or every `*.yaml` of a golden folder in name order."""
    path = Path(path)
    return sorted(path.glob("*.yaml")) if path.is_dir() else [path]


def load_golden(path: Path) -> GoldenSet:
    """Parse and validate a golden file (or a folder of them: one set, ids unique across files);
    a problem names the file, query index and field."""
    files = golden_files(path)
    if not files:
        raise ValueError(f"{path}: no golden files")
    queries: list[Any] = []
    for f in files:
        data = yaml_safe_load(Path(f).read_text(encoding="utf-8"))
        queries += _validated(f, data).queries
    return _validated(path, {"schema": SCHEMA, "queries": queries})


def _validated(where_from: Path, data: Any) -> GoldenSet:
    """The golden set in `data`; a problem names `where_from`, the query index and the field."""
    try:
        return GoldenSet.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ValueError(f"{where_from}: {where}: {err['msg']}") from None


# -- resolution against the manifest ---------------------------------------------------------
@dataclass(frozen=True)
class Expectation:
    """What a query's answer is in one generated data set: the list to rank and its relevant keys."""

    target: str | None  # the ranked list judged: actors | episodes | skills | code; None for empty queries
    relevant: frozenset[str]
    empty: bool = False
    problem: str | None = None  # why the selector resolved to nothing (the query is then skipped)


def list_for(expect: Expect) -> str | None:
    """The ranked list a selector is judged on (see golden/README.md)."""
    sel = expect.selector
    if sel.startswith("actors"):
        return "actors"
    if sel.startswith("sessions"):
        return "episodes"
    if sel == "skills":
        return "skills"
    if sel.startswith("code"):
        return "code"
    return None


def _as_list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else [v]


def _ts(s: str | None) -> datetime | None:
    return _aware(datetime.fromisoformat(s.replace("Z", "+00:00"))) if s else None


def _aware(d: datetime | None) -> datetime | None:
    """Naive times in the golden file or manifest mean UTC (the generator's clock is UTC)."""
    return d.replace(tzinfo=UTC) if d is not None and d.tzinfo is None else d


class Resolver:
    """Resolves selectors and filters against one manifest (and the real skill names, if any)."""

    def __init__(self, manifest: dict[str, Any], real_skills: set[str] | None = None) -> None:
        self.manifest = manifest
        self.ws_ids = {w["name"]: w["id"] for w in manifest.get("workspaces", [])}
        self.tasks = [t for t in manifest.get("tasks", []) if not t.get("deleted")]
        self.skill_names = {s["name"] for s in manifest.get("skills", []) if s.get("status") == "live"}
        self.real_skills = real_skills

    def tasks_matching(self, f: TaskFilter) -> list[dict[str, Any]]:
        templates, outcomes = set(_as_list(f.template)), set(_as_list(f.outcome)) if f.outcome else None
        since, until = _aware(f.since), _aware(f.until)
        ws = self.ws_ids.get(f.workspace, f"?{f.workspace}") if f.workspace else None
        out = []
        for t in self.tasks:
            started = _ts(t.get("started_at"))
            if t["template"] not in templates or (outcomes and t["outcome"] not in outcomes):
                continue
            if (f.language and t["language"] != f.language) or (ws and t["workspace_id"] != ws):
                continue
            if f.source and t["source"] != f.source:
                continue
            if (since and (started is None or started < since)) or (until and (started is None or started > until)):
                continue
            out.append(t)
        return out

    def _code(self, keep: Any) -> set[str]:
        return {f"{c['workspace_id']}:{c['path']}" for c in self.manifest.get("code", []) if keep(c)}

    def resolve(self, q: GoldenQuery) -> Expectation:
        e = q.expect
        sel = e.selector
        lst = list_for(e)
        if sel == "empty":
            return Expectation(None, frozenset(), empty=True)
        if sel == "actors_of":
            keys = {t["actor_id"] for t in self.tasks_matching(e.actors_of) if t.get("actor_id")}
        elif sel == "actors_named":
            # actors of these names (a saved agent, subagent or team member role) that did some live
            # task: an actor with no work has no evidence to be named with (KC-7)
            names = {n.lower() for n in e.actors_named}
            working = {t["actor_id"] for t in self.tasks if t.get("actor_id")}
            keys = {a["actor_id"] for a in self.manifest.get("actors", [])
                    if (a.get("name") or "").lower() in names and a["actor_id"] in working}
        elif sel == "sessions_of":
            keys = {t["session_id"] for t in self.tasks_matching(e.sessions_of) if t.get("session_id")}
        elif sel == "sessions_mentioning":
            needle = e.sessions_mentioning.lower()
            keys = {t["session_id"] for t in self.tasks if needle in {i.lower() for i in t.get("identifiers", [])}}
        elif sel == "skills":
            universe = self.real_skills if q.slice in REAL_SKILL_SLICES else self.skill_names
            if universe is None:
                return Expectation(lst, frozenset(), problem="real skills are not available")
            missing = sorted(set(e.skills) - universe)
            if missing:
                return Expectation(lst, frozenset(), problem=f"unknown skills {missing}")
            keys = set(e.skills)
        elif sel == "code_mentioning":
            keys = self._code(lambda c: e.code_mentioning in c.get("mentions", []))
        elif sel == "code_defining":
            keys = self._code(lambda c: e.code_defining in c.get("symbols", []))
        else:  # code_paths
            wanted = set()
            for wp in e.code_paths:
                name, _, path = wp.partition(":")
                wanted.add(f"{self.ws_ids.get(name, '?' + name)}:{path}")
            keys = self._code(lambda c: f"{c['workspace_id']}:{c['path']}" in wanted)
            if len(keys) != len(wanted):
                return Expectation(lst, frozenset(), problem=f"paths not in manifest: {sorted(wanted - keys)}")
        if not keys:
            return Expectation(lst, frozenset(), problem=f"{sel} matches nothing in this manifest")
        return Expectation(lst, frozenset(keys))

    def filters(self, q: GoldenQuery) -> tuple[dict[str, Any], str | None]:
        """Contract `filters` for the request; workspace names become ids (unknown name → problem)."""
        if q.filters is None:
            return {}, None
        out = q.filters.model_dump(exclude_defaults=True, exclude_none=True)
        if q.filters.workspaces:
            unknown = [n for n in q.filters.workspaces if n not in self.ws_ids]
            if unknown:
                return {}, f"unknown workspaces {unknown}"
            out["workspaces"] = [self.ws_ids[n] for n in q.filters.workspaces]
        return out, None
