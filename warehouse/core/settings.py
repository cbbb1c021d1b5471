"""The `agent-knowledge` settings section (spec 001 §8.4) as a pydantic model.

Loaded from `$AKW_HOME/config.yaml` (top key `agent-knowledge`), then overridden by
`AKW_<SECTION>__<KEY>` environment variables; `akw config set key=value` writes the file.
Unknown keys are rejected so a typo never silently falls back to a default.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.paths import private_dir
from warehouse.core.yaml_load import safe_load as yaml_safe_load

SECTION = "agent-knowledge"
ENV_PREFIX = "AKW_"
PRINCIPAL_ENV = "AKW_PRINCIPAL"  # overrides access.principal


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class Sources(_Strict):
    harness: bool = True
    autoclaw: bool = True
    skills: bool = True
    code: bool = True
    # the agent tools' own histories (issue 26): `auto` reads them when their folder exists
    claude_code: bool | Literal["auto"] = "auto"
    codex: bool | Literal["auto"] = "auto"
    extra_skill_dirs: list[str] = Field(default_factory=list)


class Schedule(_Strict):
    mode: Literal["twice_daily", "daily", "manual", "cron"] = "twice_daily"
    times: list[str] = Field(default_factory=lambda: ["03:00", "15:00"])
    timezone: str = "local"
    catch_up: Literal["latest", "none"] = "latest"
    stale_after_hours: int = Field(default=24, ge=1, le=24 * 365)
    run_on_start_if_stale: bool = True

    @field_validator("timezone")
    @classmethod
    def _zone(cls, v: str) -> str:
        if v != "local":
            from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

            try:
                ZoneInfo(v)
            except (ZoneInfoNotFoundError, ValueError):
                raise ValueError(f"timezone {v!r} is not an IANA zone (e.g. Europe/Berlin) or 'local'") from None
        return v

    @field_validator("times")
    @classmethod
    def _hhmm(cls, v: list[str]) -> list[str]:
        for t in v:
            if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", t):
                raise ValueError(f"time {t!r} is not HH:MM")
        return v


class Exclude(_Strict):
    workspaces: list[str] = Field(default_factory=list)
    paths: list[str] = Field(default_factory=list)
    sessions: list[str] = Field(default_factory=list)
    actors: list[str] = Field(default_factory=list)
    file_patterns: list[str] = Field(default_factory=list)


class Semantic(_Strict):
    """The semantic lane (FR-5.1): off by default; `local` = the bundled model, no text leaves the machine."""

    enabled: bool = False
    provider: Literal["local"] = "local"


class Dispatch(_Strict):
    """`knowledge_dispatch`: which hand-over modes the warehouse may plan and record (never execute)."""

    enabled: bool = True
    allow_team_task: bool = True
    allow_spawn_replica: bool = True
    allow_external_handoff: bool = True
    require_confirmation: bool = True

    def allows(self, mode: str) -> bool:
        """Whether these settings let a plan hand work over in `mode` (`none` never)."""
        if not self.enabled:
            return False
        return {"team_task": self.allow_team_task, "spawn_replica": self.allow_spawn_replica,
                "external_handoff": self.allow_external_handoff}.get(mode, False)


class Reports(_Strict):
    """`akw report`: content-free unless `snippets`; `on_schedule` asks the scheduler to write one after a run."""

    snippets: bool = False
    on_schedule: bool = False


class UI(_Strict):
    """How output speaks to people (issue 28): `auto` follows the typed query/task, else the locale
    (core/language.py); `ru`/`en` fix it. JSON fields, codes and data are never translated."""

    language: Literal["auto", "ru", "en"] = "auto"


class Rights(_Strict):
    """What one principal may see: values resolved against the ACL tables (`ak_acl_*`) of each generation."""

    workspaces: list[str] = Field(default_factory=list)  # workspace ids, paths or folder names/titles
    autoclaw_accounts: list[str] = Field(default_factory=list)
    skills_roots: list[str] = Field(default_factory=list)  # a root's path or its kind (dsh_home, ...)
    # team lake (ADR 0013): the writers (`lake.writer_id`) whose data it sees; None (key absent): every writer.
    # Intersected with the rights above: a document needs an allowed writer AND a workspace/account/root right.
    writers: list[str] | None = None


def _principal(v: str | None) -> str | None:
    """A principal is an e-mail address (blank: none)."""
    v = (v or "").strip()
    if not v:
        return None
    if len(v) > 320 or not re.fullmatch(r"[^@\s\x00]+@[^@\s\x00]+", v):
        raise ValueError("principal must be an e-mail address")
    return v


class Access(_Strict):
    """Access control (issue 16, seed 004): off = single user, the local user sees everything local.

    On: every read is scoped to `principal` (the `AKW_PRINCIPAL` environment variable overrides it);
    with no principal every read is refused (KNOWLEDGE_NO_PRINCIPAL). Never set by a request.
    """

    enabled: bool = False
    principal: str | None = None
    principals: dict[str, Rights] = Field(default_factory=dict)
    # who may run the whole-home operations under access control (reindex, forget all, index delete,
    # disable --delete-index, scheduled runs, report, quality): everyone else is KNOWLEDGE_ACCESS_DENIED
    admins: list[str] = Field(default_factory=list)
    hidden_hints: bool = True  # say "something relevant exists in system X, author Y" (content-free)
    live_check: bool = True  # late-binding trim: re-check the final items against the live sources
    count_hits: bool = True  # access_counter: +1 per entity returned or opened (AKW_HOME/access/counter.sqlite)

    @field_validator("principal")
    @classmethod
    def _email(cls, v: str | None) -> str | None:
        return _principal(v)

    @field_validator("admins")
    @classmethod
    def _emails(cls, v: list[str]) -> list[str]:
        out = [_principal(x) for x in v]
        if any(x is None for x in out):
            raise ValueError("admins: e-mail addresses")
        return sorted(set(out))  # type: ignore[arg-type]

    def is_admin(self, principal: str | None) -> bool:
        return principal is not None and principal in self.admins


SIZE = r"^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$"  # DuckDB's way of writing a size, as we accept it
_SIZE_UNITS = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
               "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40}


def size_bytes(text: str) -> int:
    """`200MB` -> 200_000_000; ValueError for anything but a number and one of the units of SIZE."""
    m = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]+)\s*", text or "")
    if not m or m.group(2).upper() not in _SIZE_UNITS:
        raise ValueError(f"{text!r} is not a size")
    return int(float(m.group(1)) * _SIZE_UNITS[m.group(2).upper()])


def _bounded_size(text: str, low: int, high: int) -> str:
    """A size DuckDB will take and this machine can honour, checked when set, not at the next build."""
    if not re.fullmatch(SIZE, text or ""):
        raise ValueError("a size such as 200MB or 1GB (B, KB, MB, GB, TB, KiB … TiB)")
    if not low <= size_bytes(text) <= high:
        raise ValueError(f"between {low // 10**6} MB and {high // 10**12} TB")
    return text


class Index(_Strict):
    """Index-affecting knobs: they enter `index_rev`.

    The defaults keep a 100k-event build under 500 MB RSS on 2 cores; raise both for corpora of
    a million documents (e.g. memory_limit 1GB, threads 2: faster, under 2 GB).
    """

    memory_limit: str = "200MB"
    threads: int = Field(default=1, ge=1, le=64)
    code_max_file_bytes: int = Field(default=512_000, ge=1_000)

    @field_validator("memory_limit")
    @classmethod
    def _memory(cls, v: str) -> str:
        return _bounded_size(v, 10**6, 10**12)  # a tiny limit is a coded OOM at build time, not a crash


class Query(_Strict):
    """`akw sql` limits: past `timeout_s` a query is interrupted, past `spill_limit` of spill it fails
    (both KNOWLEDGE_LIMIT)."""

    timeout_s: float = Field(default=30.0, gt=0, le=24 * 3600)
    spill_limit: str = Field(default="2GB", pattern=SIZE)


_PASSWORD_IN_DSN = re.compile(r"(?i)(\bpassword\s*=|://[^/@\s]*:[^/@\s]*@)")


class LakeSettings(_Strict):
    """Where bronze units live: `local` (the Parquet lake under AKW_HOME) or a shared `ducklake` (ADR 0013).

    `catalog` is a libpq DSN of the PostgreSQL catalog *without* a password: the password comes from
    PGPASSWORD or a pgpass-style file (`passfile`, else PGPASSFILE / ~/.pgpass), so it is never in the config.
    """

    backend: Literal["local", "ducklake"] = "local"
    catalog: str | None = None
    data_path: str | None = None
    writer_id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")
    passfile: str | None = None
    batch_units: int = Field(default=50, ge=1, le=10_000)
    connect_timeout_s: int = Field(default=5, ge=1, le=600)

    @field_validator("catalog")
    @classmethod
    def _no_password(cls, v: str | None) -> str | None:
        if v is not None and _PASSWORD_IN_DSN.search(v):
            raise ValueError("the catalog DSN must not carry a password (use PGPASSWORD or a pgpass file)")
        return v


class Settings(_Strict):
    enabled: bool = True
    sources: Sources = Field(default_factory=Sources)
    schedule: Schedule = Field(default_factory=Schedule)
    retention_days: int = Field(default=180, ge=1, le=100_000)  # beyond, the cutoff date overflows
    exclude: Exclude = Field(default_factory=Exclude)
    redact_secrets: bool = True
    redact_pii: bool = True  # e-mail addresses and phone numbers (only while redact_secrets is on)
    semantic: Semantic = Field(default_factory=Semantic)
    dispatch: Dispatch = Field(default_factory=Dispatch)
    index: Index = Field(default_factory=Index)
    reports: Reports = Field(default_factory=Reports)
    query: Query = Field(default_factory=Query)
    access: Access = Field(default_factory=Access)
    lake: LakeSettings = Field(default_factory=LakeSettings)
    ui: UI = Field(default_factory=UI)

    # -- loading / saving -------------------------------------------------------
    @classmethod
    def load(cls, config_file: Path, env: dict[str, str] | None = None) -> Settings:
        data: dict[str, Any] = {}
        if config_file.exists():
            try:
                raw = yaml_safe_load(config_file.read_text(encoding="utf-8")) or {}
            except yaml.YAMLError as e:
                raise KnowledgeError(Code.CONFIG_INVALID, f"{config_file.name}: not valid YAML ({e})") from e
            if not isinstance(raw, dict):
                raise KnowledgeError(Code.CONFIG_INVALID, f"{config_file.name}: top level must be a mapping")
            data = raw.get(SECTION, {}) or {}
        for key, value in _env_overrides(os.environ if env is None else env).items():
            _set_path(data, key.split("."), yaml_safe_load(value))
        principal = (os.environ if env is None else env).get(PRINCIPAL_ENV)
        if principal is not None:  # the caller's identity: the environment wins over the file
            _set_path(data, ["access", "principal"], principal)
        return _validate(data)

    def save(self, config_file: Path) -> None:
        private_dir(config_file.parent)
        tmp = config_file.with_suffix(".tmp")
        tmp.write_text(yaml.safe_dump({SECTION: self.model_dump()}, sort_keys=False, allow_unicode=True))
        os.chmod(tmp, 0o600)
        tmp.replace(config_file)

    def with_value(self, dotted_key: str, raw_value: str) -> Settings:
        """Return a copy with `dotted_key` set from a YAML scalar/list literal; bad keys are named."""
        parts = dotted_key.split(".")
        if parts and parts[0] == SECTION:
            parts = parts[1:]
        _check_known_key(parts)
        data = self.model_dump()
        try:
            value = yaml_safe_load(raw_value)
        except yaml.YAMLError as e:
            raise KnowledgeError(Code.CONFIG_INVALID, f"{dotted_key}: value is not valid YAML", key=dotted_key) from e
        except (RecursionError, ValueError):  # 5,000 nested brackets; a number of 5,000 digits
            raise KnowledgeError(Code.CONFIG_INVALID, f"{dotted_key}: value is nested too deeply or too long",
                                 key=dotted_key) from None
        _set_path(data, parts, value)
        return _validate(data)

    def index_affecting(self) -> dict[str, Any]:
        """Settings that change what is indexed or how: they are hashed into `index_rev`."""
        out: dict[str, Any] = {
            "sources": self.sources.model_dump(),
            "exclude": self.exclude.model_dump(),
            "redact_secrets": self.redact_secrets,
            "retention_days": self.retention_days,
            "index": self.index.model_dump(),
        }
        if not self.redact_pii:  # the default adds nothing: index_rev stays what it was before the switch
            out["redact_pii"] = False
        if self.semantic.enabled:  # off adds nothing: index_rev stays what it was before the semantic lane
            from warehouse.core.embed import model_key

            out["semantic"] = {"provider": self.semantic.provider, "model": model_key()}
        return out


def _env_overrides(env: dict[str, str] | os._Environ[str]) -> dict[str, str]:
    out = {}
    for k, v in env.items():
        if k.startswith(ENV_PREFIX) and "__" in k:
            dotted = k[len(ENV_PREFIX):].lower().replace("__", ".")
            out[dotted] = v
    return out


def _set_path(data: dict[str, Any], parts: list[str], value: Any) -> None:
    cur = data
    for p in parts[:-1]:
        nxt = cur.get(p)
        if not isinstance(nxt, dict):
            nxt = {}
            cur[p] = nxt
        cur = nxt
    cur[parts[-1]] = value


def _check_known_key(parts: list[str]) -> None:
    model: type[BaseModel] = Settings
    for i, p in enumerate(parts):
        fields = model.model_fields
        if p not in fields:
            key = ".".join(parts[: i + 1])
            raise KnowledgeError(Code.CONFIG_INVALID, f"unknown setting {key!r}", key=key)
        ann = fields[p].annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            model = ann
        elif i < len(parts) - 1:
            key = ".".join(parts[: i + 2])
            raise KnowledgeError(Code.CONFIG_INVALID, f"unknown setting {key!r}", key=key)


def _validate(data: dict[str, Any]) -> Settings:
    try:
        return Settings.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        key = ".".join(str(x) for x in err["loc"])
        raise KnowledgeError(Code.CONFIG_INVALID, f"{key}: {err['msg']}", key=key) from e
