"""The Python API: one `Warehouse` method per operation; every `akw` command is a thin call of one of them."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from warehouse.errors import Code, KnowledgeError, refusing_hostile_input
from warehouse.paths import Paths
from warehouse.search.contract import SearchRequest, parse_request, response_dict
from warehouse.search.request import search_request
from warehouse.search.service import SearchEngine
from warehouse.settings import Settings
from warehouse.state import load_all_units

if TYPE_CHECKING:  # the extract stack (polars, pyarrow) is imported only by processes that extract
    from warehouse.extract.base import Progress

Log = Callable[[str], None]
FixtureProgress = Callable[[int, int], None]  # (done, total) of the fixture generator

# the scenarios `akw demo` runs: (title, query, mode)
DEMO_SCENARIOS = (
    ("UJ-1 who already migrated iya.ru?", "Кто уже занимался переносом сайта iya.ru на новый сервер?", "auto"),
    ("UJ-2 everything about the deploy-iya-ru skill", "deploy-iya-ru skill for a deployment", "find_skill"),
    ("UJ-4 what do we know about TLS certificates?", "what do we know about renewing TLS certificates", "auto"),
)
# UJ-3 "hand the task to the best performer": a dry run, then a confirmed commit of the same request
DEMO_DISPATCH_TITLE = "UJ-3 hand a task to the best performer (dry run → commit → outbox package)"
DEMO_DISPATCH = {
    "schema": "knowledge.dispatch/v1",
    "dispatch_id": "demo-uj3-mysql-access",
    "task": {"title": "Restore MySQL root access on 176.99.5.35",
             "text": "root gets ERROR 1045 on 176.99.5.35; restore access with mysql-access-restore",
             "acceptance": ["root can log in with the new password", "no database is lost"],
             "constraints": ["do not restart production MySQL during business hours"]},
    "target": "auto",
}


def _parse(request: dict[str, Any] | str) -> SearchRequest:
    """Validate a request; hostile shapes that escape pydantic are still `KNOWLEDGE_INVALID_REQUEST`."""
    with refusing_hostile_input():
        req = parse_request(request)
        req.model_dump_json()  # a lone surrogate (undecodable bytes) cannot be stored or printed: refuse it now
    return req


def _writable_dir(path: Path, field: str) -> Path:
    """Create `path` if needed; a folder the user cannot write is their mistake, not an internal error."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise KnowledgeError(Code.INVALID_REQUEST, f"{field}: cannot create {path} ({e.strerror})",
                             field=field) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise KnowledgeError(Code.INVALID_REQUEST, f"{field}: {path} is not writable", field=field)
    return path


def default_writer_id() -> str:
    """`user@host`, cleaned to the `lake.writer_id` alphabet."""
    import re
    import socket

    return re.sub(r"[^A-Za-z0-9._@-]", "-", f"{os_user()}@{socket.gethostname()}")[:64]


def os_user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (some containers)
        return "unknown"


class Warehouse:
    """A handle on one warehouse home and its settings.

    Identity and locations come from configuration, never from a caller's free text.
    """

    def __init__(self, paths: Paths, settings: Settings | None = None) -> None:
        self.paths = paths
        self.settings = settings if settings is not None else Settings.load(paths.config_file)
        self._engine: SearchEngine | None = None

    @classmethod
    def open(cls, dsh_home: str | Path | None = None, autoclaw_root: str | Path | None = None,
             home: str | Path | None = None) -> Warehouse:
        return cls(Paths.resolve(dsh_home, autoclaw_root, home))

    @property
    def engine(self) -> SearchEngine:
        """The search engine of this home (opened lazily, follows newly published generations)."""
        if self._engine is None:
            self._engine = SearchEngine(self.paths.generations, self.settings)
        return self._engine

    def _require_enabled(self) -> None:
        if not self.settings.enabled:
            raise KnowledgeError(Code.DISABLED, "agent-knowledge is disabled (akw config set enabled=true)")

    # -- operations -------------------------------------------------------------
    def extract(self, sources: list[str] | None = None, progress: Progress | None = None) -> dict[str, Any]:
        from warehouse.extract import run_extract  # imported on use: search-only processes stay light

        self._require_enabled()
        return run_extract(self.paths, self.settings, sources=sources, progress=progress)

    def reindex(self, mode: str = "incremental", progress: Progress | None = None,
                wait_s: float = 0.0, snapshot: int | None = None) -> dict[str, Any]:
        """`snapshot` (team backend): rebuild from that team-catalog snapshot, for audits (time travel)."""
        from warehouse.build.reindex import reindex

        return reindex(self.paths, self.settings, mode=mode, progress=progress, wait_s=wait_s, snapshot=snapshot)

    # -- the team lake (ADR 0013) ---------------------------------------------------
    def team_init(self, catalog: str, data_path: str, writer_id: str | None = None) -> dict[str, Any]:
        """Point this home at a shared DuckLake (PostgreSQL catalog) and create its tables; idempotent."""
        from warehouse.team.catalog import init

        s = self.settings
        for key, value in (("lake.backend", "ducklake"), ("lake.catalog", catalog), ("lake.data_path", data_path),
                           ("lake.writer_id", writer_id or s.lake.writer_id or default_writer_id())):
            s = s.with_value(key, json.dumps(value))
        result = init(s.lake)  # the config changes only once the catalog answered
        s.save(self.paths.config_file)
        self.settings = s
        return {**result, "backend": "ducklake", "config_file": str(self.paths.config_file)}

    def team_push(self, progress: Progress | None = None) -> dict[str, Any]:
        """Extract what changed and push it to the team lake (no build); the extract report with `push`."""
        from warehouse import generation

        if self.settings.lake.backend != "ducklake":
            raise KnowledgeError(Code.CONFIG_INVALID, "lake.backend is local (akw team init first)",
                                 key="lake.backend")
        self.paths.ensure()
        with generation.writer_lock(self.paths.home):  # not beside a reindex of the same home
            return self.extract(progress=progress)

    def team_status(self) -> dict[str, Any]:
        """Writers, their last commit, the catalog snapshot, this machine's lag; `degraded` if unreachable."""
        from warehouse.team.status import team_status

        return team_status(self.paths, self.settings)

    def status(self) -> dict[str, Any]:
        from warehouse.status import status

        return status(self.paths, self.settings)

    def sql(self, query: str, limit: int = 1000) -> dict[str, Any]:
        """Run one read-only query on the published generation (no file or network access from SQL)."""
        from warehouse import generation

        con, gen = generation.open_current(self.paths.generations)
        try:
            con.execute("SET enable_external_access = false")
            con.execute("SET lock_configuration = true")
            cur = con.execute(query)
            cols = [d[0] for d in cur.description] if cur.description else []
            rows = cur.fetchmany(limit + 1)
        except KnowledgeError:
            raise
        except Exception as e:
            raise KnowledgeError(Code.QUERY_INVALID, f"{type(e).__name__}: {e}") from e
        finally:
            con.close()
        return {"index_rev": gen.index_rev, "columns": cols, "rows": [list(r) for r in rows[:limit]],
                "truncated": len(rows) > limit}

    def search(self, request: dict[str, Any] | str) -> dict[str, Any]:
        """`knowledge_search` v1: a request document in, the response document out (contract 000)."""
        self._require_enabled()
        return response_dict(self.engine.search(_parse(request)))

    def search_text(self, query: str, mode: str = "auto", limit: int = 10,
                    workspaces: list[str] | None = None, **extra: Any) -> dict[str, Any]:
        """Convenience for Python callers: build the request from a query and a few options."""
        return self.search(search_request(query, mode, limit, workspaces, **extra))

    # -- cards (knowledge_get_agent / get_skill / get_episode; docs/cards.md) ----------------------
    def get(self, kind: str, id: str, task: str | None = None, source: str | None = None,
            max_chars: int | None = None) -> dict[str, Any]:
        """The card of one agent, skill, episode or code chunk by an id a search response returned."""
        from warehouse.cards.service import get_card  # imported on use: `akw status` stays light

        self._require_enabled()
        return get_card(self.paths, self.settings, kind, id, task=task, source=source, max_chars=max_chars)

    def get_agent(self, id: str, task: str | None = None, max_chars: int | None = None) -> dict[str, Any]:
        return self.get("agent", id, task=task, max_chars=max_chars)

    def get_skill(self, name: str, source: str | None = None, task: str | None = None,
                  max_chars: int | None = None) -> dict[str, Any]:
        return self.get("skill", name, task=task, source=source, max_chars=max_chars)

    def get_episode(self, id: str, max_chars: int | None = None) -> dict[str, Any]:
        return self.get("episode", id, max_chars=max_chars)

    def get_code(self, id: str, max_chars: int | None = None) -> dict[str, Any]:
        return self.get("code", id, max_chars=max_chars)

    def dispatch(self, request: dict[str, Any] | str, requested_by: str | None = None) -> dict[str, Any]:
        """`knowledge_dispatch` v1: a plan (dry run), or on an explicit commit one recorded plan + handoff package.

        `requested_by` names who asks (the surface sets it, never the request); default `api:<os user>`.
        """
        from warehouse.dispatch.service import dispatch

        self._require_enabled()
        return dispatch(self.paths, self.settings, self.engine, request, requested_by or f"api:{os_user()}")

    def dispatch_list(self) -> dict[str, Any]:
        """The recorded dispatches of the outbox, oldest first (read directly: no index needed)."""
        from warehouse.dispatch.service import list_assignments

        return list_assignments(self.paths)

    def dispatch_show(self, dispatch_id: str) -> dict[str, Any]:
        """One recorded dispatch (by assignment id or dispatch id): its row and its knowledge.handoff/v1 package."""
        from warehouse.dispatch.service import show

        return show(self.paths, dispatch_id)

    def sources(self) -> dict[str, Any]:
        units = load_all_units(self.paths.state_dir)
        summary: dict[str, dict[str, int]] = {}
        for u in units:
            s = summary.setdefault(u["source"], {"units": 0, "ok": 0, "error": 0, "excluded": 0})
            s["units"] += 1
            s[u["status"]] = s.get(u["status"], 0) + 1
        return {
            "paths": {"dsh_home": str(self.paths.dsh_home), "autoclaw_root": str(self.paths.autoclaw_root),
                      "home": str(self.paths.home)},
            "sources": summary,
            "units": units,
        }

    # -- settings -----------------------------------------------------------------
    def config_show(self) -> dict[str, Any]:
        """The effective settings (file + environment overrides) and where they are stored."""
        return {"config_file": str(self.paths.config_file), "agent-knowledge": self.settings.model_dump()}

    def config_set(self, assignments: Iterable[str]) -> dict[str, Any]:
        """Apply `key=value` pairs; all are validated before anything is written, a bad one is named."""
        s = self.settings
        for a in assignments:
            if "=" not in a:
                raise KnowledgeError(Code.CONFIG_INVALID, f"{a!r}: expected key=value", key=a)
            key, value = a.split("=", 1)
            s = s.with_value(key.strip(), value)
        s.save(self.paths.config_file)
        was_semantic = self.settings.semantic.enabled
        self.settings, self._engine = s, None  # the engine was built with the old settings
        doc = self.config_show()
        if s.semantic.enabled and not was_semantic:
            doc["notes"] = [semantic_note()]
        return doc

    # -- generated data, demo, quality gates (no existing home needed) -------------
    @staticmethod
    def generate_fixtures(out: Path, sessions: int = 24, seed: int = 7, events: int | None = None,
                          broken: bool = False, progress: FixtureProgress | None = None) -> dict[str, Any]:
        """Write realistic DSH/AutoClaw/workspace sources with a ground-truth manifest into `out`."""
        import akw_fixtures  # the test-data generator is never loaded by search-only processes

        out = _writable_dir(Path(out), "out").absolute()
        manifest = akw_fixtures.generate(out, sessions=sessions, seed=seed, events=events, broken=broken,
                                         progress=progress)
        return {"out": str(out), "counts": manifest.get("counts", {}),
                "env": {"DSH_HOME": str(out / "dsh"), "AUTOCLAW_ROOT": str(out / "autoclaw")}}

    @classmethod
    def demo(cls, out: Path = Path("demo"), sessions: int = 24, seed: int = 7, progress: Progress | None = None,
             log: Log | None = None) -> dict[str, Any]:
        """Generate data into `out` (unless present), index it, run the UJ-1/2/4 searches, the UJ-3 dispatch
        (dry run, confirmed commit, the outbox package) and UJ-5 status."""
        out = _writable_dir(Path(out), "out")
        if not (out / "manifest.json").exists():
            if log:
                log(f"generating {sessions} sessions (seed {seed}) into {out}/ …")
            cls.generate_fixtures(out, sessions=sessions, seed=seed)
        wh = cls.open(out / "dsh", out / "autoclaw", out / "akw-home")
        doc: dict[str, Any] = {"reindex": wh.reindex(progress=progress)}
        doc["env"] = {"DSH_HOME": str(wh.paths.dsh_home), "AUTOCLAW_ROOT": str(wh.paths.autoclaw_root),
                      "AKW_HOME": str(wh.paths.home)}
        doc["scenarios"] = {name: wh.search(search_request(q, mode, 6)) for name, q, mode in DEMO_SCENARIOS}
        plan = wh.dispatch({**DEMO_DISPATCH, "dry_run": True}, requested_by="demo")
        commit = wh.dispatch({**DEMO_DISPATCH, "dry_run": False, "commit": True, "confirm": True}, requested_by="demo")
        doc["dispatch"] = {"title": DEMO_DISPATCH_TITLE, "dry_run": plan, "commit": commit,
                           "outbox": wh.dispatch_show(DEMO_DISPATCH["dispatch_id"])}
        doc["status"] = wh.status()
        return doc

    @staticmethod
    def eval(golden: Path | None = None, data_dir: Path | None = None, sessions: int = 24, seed: int = 7,
             out_dir: Path | None = Path("reports"), min_recall3: float = 0.80, min_mrr: float = 0.60,
             max_zero: float = 0.10, max_false_hit: float | None = None, log: Log | None = None,
             semantic: str = "auto") -> dict[str, Any]:
        """Run the golden set on generated data; the report says `passed` against the thresholds.

        `semantic`: off | on | both | auto (both when the [semantic] extra is installed); the report's
        `semantic` section has every slice per setting, its `summary` the first setting's."""
        from warehouse.evaluation.homes import default_data_dir
        from warehouse.evaluation.runner import DEFAULT_GOLDEN, SEMANTIC_CHOICES, EvalConfig, Thresholds, run_eval

        golden = Path(golden or DEFAULT_GOLDEN)
        if not golden.is_file():
            raise KnowledgeError(Code.INVALID_REQUEST, f"golden: no such file {golden}", field="golden")
        data = _writable_dir(Path(data_dir or default_data_dir("eval", sessions, seed)), "generate")
        out = _writable_dir(Path(out_dir), "out") if out_dir is not None else None
        if semantic not in SEMANTIC_CHOICES:
            raise KnowledgeError(Code.INVALID_REQUEST, f"semantic: one of {', '.join(SEMANTIC_CHOICES)}",
                                 field="semantic")
        cfg = EvalConfig(golden=golden, data_dir=data, sessions=sessions, seed=seed, out_dir=out, semantic=semantic)
        limits = Thresholds(min_recall3=min_recall3, min_mrr=min_mrr, max_zero=max_zero, max_false_hit=max_false_hit)
        return run_eval(Warehouse, cfg, limits, log=log)

    @staticmethod
    def bench(scale: str = "small", out_dir: Path | None = Path("reports"), work: Path | None = None,
              log: Log | None = None, team_catalog: str | None = None) -> dict[str, Any]:
        """Build times, search latency per mode, peak RSS and size at one scale, against a SQLite FTS5 baseline.

        `team_catalog` (a scratch PostgreSQL database's DSN): also push throughput and build-from-snapshot time."""
        import tempfile

        from warehouse.bench.run import SCALES, run_bench

        if scale not in SCALES:
            raise KnowledgeError(Code.INVALID_REQUEST, f"scale: one of {', '.join(SCALES)}", field="scale")
        folder = _writable_dir(Path(work or Path(tempfile.gettempdir()) / "akw-bench"), "work")
        out = _writable_dir(Path(out_dir), "out") if out_dir is not None else None
        if team_catalog is not None:
            Settings().with_value("lake.catalog", json.dumps(team_catalog))  # no password in a DSN, here too
        return run_bench(SCALES[scale], folder, out, log=log, team_catalog=team_catalog)


def semantic_note() -> dict[str, str]:
    """What turning semantic search on means: local, and what to run (or install) next."""
    from warehouse import embed

    if not embed.installed():
        err = embed.not_installed_error()
        return {"code": err.code, "message": err.message}
    return {"code": "KNOWLEDGE_SEMANTIC_LOCAL",
            "message": f"semantic search is local: the {embed.MODEL} model runs on this machine and no text leaves "
                       "it; run `akw reindex` to embed the episodes and skills"}
