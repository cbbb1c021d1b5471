"""The Python API: one `Warehouse` method per operation; every `akw` command is a thin call of one of them."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from warehouse.core.errors import MAX_REQUEST_BYTES, Code, KnowledgeError, refusing_hostile_input, request_too_large
from warehouse.core.paths import Paths
from warehouse.core.settings import Settings
from warehouse.core.source_roots import root_states
from warehouse.home import access_counter, usage
from warehouse.home.state import load_all_units
from warehouse.search.access import Scope, scope_for
from warehouse.search.contract import SearchRequest, parse_request, response_dict
from warehouse.search.request import search_request
from warehouse.search.service import SearchEngine

if TYPE_CHECKING:  # the extract stack (polars, pyarrow) is imported only by processes that extract
    from warehouse.extract.base import Progress

Log = Callable[[str], None]
FixtureProgress = Callable[[int, int], None]  # (done, total) of the fixture generator

def _parse(request: dict[str, Any] | str) -> SearchRequest:
    """Validate a request; hostile shapes that escape pydantic are still `KNOWLEDGE_INVALID_REQUEST`."""
    if isinstance(request, str) and len(request) > MAX_REQUEST_BYTES:
        raise request_too_large(len(request))
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

    Identity and locations come from configuration, never from a caller's free text. `principal` is
    the one seam for a surface that knows its caller (the MCP server's session): it overrides
    `access.principal` / `AKW_PRINCIPAL`, and is never fed from a request field.
    """

    surface = "api"  # who is asking, for the content-free usage metrics: cli, mcp, app (notebooks) or api

    def __init__(self, paths: Paths, settings: Settings | None = None, principal: str | None = None) -> None:
        self.paths = paths
        self.settings = settings if settings is not None else Settings.load(paths.config_file)
        self.principal = principal
        self._engine: SearchEngine | None = None

    def as_principal(self, principal: str) -> Warehouse:
        """The same warehouse (and search engine) read as `principal`: for surfaces with sessions (MCP)."""
        other = Warehouse(self.paths, self.settings, principal=principal)
        other._engine = self.engine
        other.surface = self.surface
        return other

    def _scope(self) -> Scope | None:
        """The caller's access scope; None with access off. Access on and no principal: refused."""
        return scope_for(self.settings, self.principal, (self.paths.dsh_home, self.paths.autoclaw_root))

    def _require_admin(self, operation: str) -> None:
        """Under access control a whole-home operation is an admin principal's (docs/access.md "Whole-home
        operations"): no principal is KNOWLEDGE_NO_PRINCIPAL, any other KNOWLEDGE_ACCESS_DENIED."""
        scope = self._scope()
        if scope is not None and not self.settings.access.is_admin(scope.principal):
            raise KnowledgeError(Code.ACCESS_DENIED, f"{operation} acts on the whole home: under access control "
                                 "only a principal of access.admins may run it")

    def _requester(self, default: str) -> str:
        scope = self._scope()
        return f"principal:{scope.principal}" if scope is not None else default

    @classmethod
    def open(cls, dsh_home: str | Path | None = None, autoclaw_root: str | Path | None = None,
             home: str | Path | None = None, claude_home: str | Path | None = None,
             codex_home: str | Path | None = None) -> Warehouse:
        """`claude_home`/`codex_home`: the Claude Code / Codex homes (default: `CLAUDE_CONFIG_DIR` or ~/.claude,
        `CODEX_HOME` or ~/.codex)."""
        return cls(Paths.resolve(dsh_home, autoclaw_root, home, claude_home, codex_home))

    @property
    def engine(self) -> SearchEngine:
        """The search engine of this home (opened lazily, follows newly published generations)."""
        if self._engine is None:
            from warehouse.home.feedback import log_file

            self._engine = SearchEngine(self.paths.generations, self.settings, feedback_log=log_file(self.paths),
                                        trust_paths=self.paths)
        return self._engine

    def close(self) -> None:
        """Close the search engine (its connection and threads); the next search opens a new one.
        A surface that is done with a warehouse closes it (the CLI after each command), since a dropped
        engine otherwise keeps its connection until Python's cyclic GC happens to run."""
        engine, self._engine = self._engine, None
        if engine is not None:
            engine.close()

    def __enter__(self) -> Warehouse:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _require_enabled(self) -> None:
        if not self.settings.enabled:
            raise KnowledgeError(Code.DISABLED, "agent-knowledge is disabled (akw enable)")

    # -- operations -------------------------------------------------------------
    def extract(self, sources: list[str] | None = None, progress: Progress | None = None) -> dict[str, Any]:
        from warehouse.extract import run_extract  # imported on use: search-only processes stay light

        self._require_enabled()
        self._require_admin("extract")
        return run_extract(self.paths, self.settings, sources=sources, progress=progress)

    def reindex(self, mode: str = "incremental", progress: Progress | None = None,
                wait_s: float = 0.0, snapshot: int | None = None) -> dict[str, Any]:
        """`snapshot` (team backend): rebuild from that team-catalog snapshot, for audits (time travel)."""
        from warehouse.pipeline.reindex import reindex

        self._require_admin("reindex")
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
        from warehouse.home import generation

        if self.settings.lake.backend != "ducklake":
            raise KnowledgeError(Code.CONFIG_INVALID, "lake.backend is local (akw team init first)",
                                 key="lake.backend")
        self.paths.ensure()
        with generation.writer_lock(self.paths):  # not beside a reindex of the same home
            return self.extract(progress=progress)

    def team_status(self) -> dict[str, Any]:
        """Writers, their last commit, the catalog snapshot, this machine's lag; `degraded` if unreachable."""
        from warehouse.team.status import team_status

        return team_status(self.paths, self.settings)

    def status(self) -> dict[str, Any]:
        from warehouse.home.status import status

        doc = status(self.paths, self.settings)
        if not self.settings.access.enabled:
            return doc
        try:
            keep = self._unit_filter()
        except KnowledgeError:  # no principal: status still answers (health and totals), naming no unit
            keep = lambda _unit: False  # noqa: E731
        if keep is not None:  # a unit of another's is not named to it
            doc["errors"] = [u for u in doc.get("errors") or [] if keep(u)]
            for part in ("errors", "warnings"):
                if (doc.get("last_run") or {}).get(part):
                    doc["last_run"][part] = [u for u in doc["last_run"][part] if keep(u)]
        return doc

    def _narrowed(self) -> Scope | None:
        """The scope when the caller sees only part of the home (access on, not an admin); else None."""
        scope = self._scope()
        return None if scope is None or self.settings.access.is_admin(scope.principal) else scope

    def _unit_filter(self) -> Callable[[dict[str, Any]], bool] | None:
        """Which source units the caller may be told of (search/access.unit_filter), read off one view;
        None when it may be told of all (access off, an admin); before any build, none."""
        from warehouse.home import generation
        from warehouse.search.access import unit_filter, view_on

        scope = self._narrowed()
        if scope is None:
            return None
        try:
            con, _gen = generation.open_current(self.paths.generations)
        except KnowledgeError:
            return lambda _unit: False
        try:
            return unit_filter(con, view_on(con, scope))
        finally:
            con.close()

    def sql(self, query: str, limit: int = 1000) -> dict[str, Any]:
        """Run one read-only statement on the published generation (no file or network access from SQL),
        interrupted past `query.timeout_s` (KNOWLEDGE_LIMIT)."""
        from warehouse.home import query as sql_query

        self._require_enabled()
        if self.settings.access.enabled:  # docs/access.md: free SQL would read past every right
            raise KnowledgeError(Code.ACCESS_DENIED, "akw sql is not offered under access control "
                                 "(access.enabled=true); use search, get and dispatch")
        return sql_query.run(self.paths.generations, query, limit, self.settings.query)

    def search(self, request: dict[str, Any] | str) -> dict[str, Any]:
        """`knowledge_search` v1: a request document in, the response document out (contract 000)."""
        self._require_enabled()
        t0 = time.perf_counter()
        try:
            doc = response_dict(self.engine.search(_parse(request), self._scope()))
        except KnowledgeError as e:
            usage.record(self.paths, self.surface, (time.perf_counter() - t0) * 1000, None, e.code)
            raise
        usage.record(self.paths, self.surface, (time.perf_counter() - t0) * 1000, doc)  # counts only, queued
        self._count(access_counter.response_entities(doc))
        return doc

    def usage(self, days: int = 7) -> dict[str, Any]:
        """Content-free usage metrics per surface over the last `days` days (FR-9): searches, zero-result and
        weak-answer rates, degraded-lane share, share of answers with both kinds of evidence, latency P50/P95
        and error codes; also in `status()["usage"]`."""
        return usage.summary(self.paths, days)

    def _count(self, entities: list[str]) -> None:
        """access_counter: what a response returned or a card opened (never raw candidates)."""
        if self.settings.access.count_hits:
            access_counter.record(self.paths, entities)

    def search_text(self, query: str, mode: str = "auto", limit: int = 10,
                    workspaces: list[str] | None = None, **extra: Any) -> dict[str, Any]:
        """Convenience for Python callers: build the request from a query and a few options."""
        return self.search(search_request(query, mode, limit, workspaces, **extra))

    # -- cards (knowledge_get_agent / get_skill / get_episode; docs/cards.md) ----------------------
    def get(self, kind: str, id: str, task: str | None = None, source: str | None = None,
            max_chars: int | None = None) -> dict[str, Any]:
        """The card of one agent, skill, episode or code chunk by an id a search response returned."""
        from warehouse.cards.service import get_card  # imported on use: `akw status` stays light
        from warehouse.core.language import output_language

        self._require_enabled()
        # one language for the card's own texts (task answer, notes, notices): `ui.language`, else the task's
        # letters, else the locale — the same decision the CLI's labels around it make (issue 28)
        lang = output_language(self.settings.ui.language, task if isinstance(task, str) else None)
        card = get_card(self.paths, self.settings, kind, id, task=task, source=source, max_chars=max_chars,
                        scope=self._scope(), lang=lang)
        self._count([str(card.get(key)) for key in ("actor_id", "skill_id", "episode_id", "chunk_id", "id")
                     if card.get(key)][:1])
        return card

    def get_agent(self, id: str, task: str | None = None, max_chars: int | None = None) -> dict[str, Any]:
        return self.get("agent", id, task=task, max_chars=max_chars)

    def get_skill(self, name: str, source: str | None = None, task: str | None = None,
                  max_chars: int | None = None) -> dict[str, Any]:
        return self.get("skill", name, task=task, source=source, max_chars=max_chars)

    def get_episode(self, id: str, max_chars: int | None = None) -> dict[str, Any]:
        return self.get("episode", id, max_chars=max_chars)

    def get_code(self, id: str, max_chars: int | None = None) -> dict[str, Any]:
        return self.get("code", id, max_chars=max_chars)

    def feedback(self, result_id: str, useful: bool, request_id: str | None = None,
                 chosen: str | None = None) -> dict[str, Any]:
        """`knowledge_feedback` (FR-9): useful / not useful for a result id a search returned, optionally in
        the context of its request id and the actor/skill that was chosen. Stores ids, the verdict and the
        time only; ranking moves by a bounded boost (docs/search.md "Feedback")."""
        from warehouse.search.feedback_record import record

        self._require_enabled()
        return record(self.paths, self.engine, result_id, useful, request_id, chosen, scope=self._scope())

    def dispatch(self, request: dict[str, Any] | str, requested_by: str | None = None) -> dict[str, Any]:
        """`knowledge_dispatch` v1: a plan (dry run), or on an explicit commit one recorded plan + handoff package.

        `requested_by` names who asks (the surface sets it, never the request); default `api:<os user>`.
        """
        from warehouse.dispatch.service import dispatch

        self._require_enabled()
        if isinstance(request, str) and len(request) > MAX_REQUEST_BYTES:
            raise request_too_large(len(request))
        scope = self._scope()
        who = f"principal:{scope.principal}" if scope is not None else requested_by or f"api:{os_user()}"
        doc = dispatch(self.paths, self.settings, self.engine, request, who, scope)
        if (doc.get("assignment") or {}).get("created"):  # a dry run writes nothing (KD-1): only commits count
            self._count([doc["assignment"].get("actor_id") or ""])
        return doc

    def dispatch_list(self) -> dict[str, Any]:
        """The recorded dispatches of the outbox, oldest first (read directly: no index needed)."""
        from warehouse.dispatch.service import list_assignments

        self._require_enabled()
        scope = self._scope()
        doc = list_assignments(self.paths)
        if scope is not None:  # a principal sees the dispatches it recorded, no others
            mine = [a for a in doc["assignments"] if a.get("requested_by") == self._requester("")]
            doc.update(assignments=mine, count=len(mine))
        return doc

    def dispatch_show(self, dispatch_id: str) -> dict[str, Any]:
        """One recorded dispatch (by assignment id or dispatch id): its row and its knowledge.handoff/v1 package."""
        from warehouse.dispatch.service import show

        self._require_enabled()
        scope = self._scope()
        doc = show(self.paths, dispatch_id)
        if scope is not None and doc["assignment"].get("requested_by") != self._requester(""):
            raise KnowledgeError(Code.NOT_FOUND, f"no recorded dispatch {dispatch_id!r} in the outbox", field="id")
        return doc

    def sources(self) -> dict[str, Any]:
        self._require_enabled()
        keep = self._unit_filter()
        units = [u for u in load_all_units(self.paths.state_dir) if keep is None or keep(u)]
        summary: dict[str, dict[str, int]] = {}
        for u in units:
            s = summary.setdefault(u["source"], {"units": 0, "ok": 0, "error": 0, "excluded": 0})
            s["units"] += 1
            s[u["status"]] = s.get(u["status"], 0) + 1
        # units the published build left out (indexing/quarantine.py); their lake stems name no principal's
        # scope, so a principal under access control is not shown them
        from warehouse.home import generation
        from warehouse.home import status as status_mod
        from warehouse.home.runs import read_runs

        left_out = [] if keep is not None else status_mod.quarantined(status_mod.published_build(
            read_runs(self.paths), generation.current(self.paths.generations)))
        for e in left_out:
            summary.setdefault(e["source"], {"units": 0, "ok": 0, "error": 0, "excluded": 0})
            summary[e["source"]]["quarantined"] = summary[e["source"]].get("quarantined", 0) + 1
        return {
            "paths": {"dsh_home": str(self.paths.dsh_home), "autoclaw_root": str(self.paths.autoclaw_root),
                      "home": str(self.paths.home)},
            "roots": {name: r.to_dict() for name, r in root_states(self.paths, self.settings).items()},
            "sources": summary,
            "units": units,
            "quarantined": left_out,
        }

    # -- schedule (docs/operations.md "Schedule") --------------------------------------------------
    def schedule_show(self, now: datetime | None = None) -> dict[str, Any]:
        """The next slots, the last run, what is due now; answers when disabled too (it says so)."""
        from warehouse.home.scheduled import show

        return show(self.paths, self.settings, now)

    def schedule_run_due(self, now: datetime | None = None, at_start: bool = True) -> dict[str, Any]:
        """Run the due job once (the latest missed slot, or a stale index at start) and return; a good
        run writes the report into `reports/` under the home when `reports.on_schedule` is set."""
        from warehouse.home.scheduled import run_due

        if self.settings.enabled:
            self._require_admin("schedule run-due")
        return run_due(self.paths, self.settings, lambda: self.reindex(mode="incremental"),
                       lambda: self.report(self.paths.reports_dir), now, at_start)

    def schedule_install(self) -> dict[str, Any]:
        """A crontab line and a systemd user timer + service that call `akw schedule run-due` (installs nothing)."""
        from warehouse.home.schedule import install_texts

        return install_texts(self.paths)

    # -- lifecycle: forget, delete, on/off (docs/operations.md, ADR 0008) -------------------------
    def forget(self, kind: str, id: str = "all", confirm: bool = False) -> dict[str, Any]:
        """`knowledge_forget`: remove one session|actor|skill|workspace (or `all`) and prove no residue.

        Without `confirm` only counts what would go. Needs the warehouse enabled (it rebuilds)."""
        from warehouse.lifecycle.forget import check_rights, forget, resolve

        self._require_enabled()
        if kind == "all":
            self._require_admin("forget all")
        scope = self._narrowed()  # no principal under access control: refused before anything is read
        # what the target covers, read off the published generation once (rights, the team lake, forget)
        target = resolve(self.paths, kind, id)
        if scope is not None:  # access on, not an admin: only what it sees in full, checked before anything goes
            check_rights(self.paths, target, scope)
        team = None
        if self.settings.lake.backend == "ducklake":
            # the shared lake first: the local rebuild reads a catalog snapshot (the published generation
            # was built from it), which must not hold the target any more
            from warehouse.team.forget import forget_ids

            values = {"all": ["all"]} if kind == "all" else target.values
            team = {"kind": kind, "id": id, **forget_ids(self.settings.lake, values, confirm=confirm)}
        doc = forget(self.paths, self.settings, target, confirm=confirm)
        return {**doc, "team": team} if team is not None else doc

    def delete_index(self, confirm: bool = False) -> dict[str, Any]:
        """Delete the derived index (generations, lake, state); works enabled or disabled."""
        from warehouse.lifecycle.delete import delete_index

        self._require_admin("index delete")
        self.close()
        return delete_index(self.paths, confirm=confirm)

    def disable(self, keep_index: bool = True) -> dict[str, Any]:
        """Turn the warehouse off (`enabled: false`), keeping the index for a rebuild-free `enable` or deleting it."""
        doc: dict[str, Any] = {"enabled": False, "index_kept": keep_index}
        if not keep_index:
            self._require_admin("disable --delete-index")  # before anything changes
        self.config_set(["enabled=false"])
        if not keep_index:
            doc["deleted"] = self.delete_index(confirm=True)["removed"]
        return {**doc, "status": self.status()}

    def enable(self) -> dict[str, Any]:
        """Turn it back on; a kept index answers at once (same index_rev), a deleted one waits for `akw reindex`."""
        self.config_set(["enabled=true"])
        return {"enabled": True, "status": self.status()}

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
        self.close()  # the engine was built with the old settings
        self.settings = s
        doc = self.config_show()
        if s.semantic.enabled and not was_semantic:
            doc["notes"] = [semantic_note()]
        return doc

    # -- the people's side: data quality and reports over the published generation ----------------
    def quality(self, out_dir: Path | None = Path("reports"), log: Log | None = None) -> dict[str, Any]:
        """The data-quality suite (great-expectations) over the published generation's marts; `success` is
        false when any expectation fails, and the validation result is written to `out_dir`."""
        from warehouse.home import generation
        from warehouse.quality.run import run_quality

        self._require_enabled()
        self._require_admin("quality")
        gen = generation.current(self.paths.generations)
        if gen is None:
            raise KnowledgeError(Code.NOT_READY, "no index generation is published yet (run `akw reindex`)")
        out = _writable_dir(Path(out_dir), "out") if out_dir is not None else None
        return run_quality(gen.path, out, index_rev=gen.index_rev, log=log, lake=self.paths.lake)

    def report(self, out_dir: Path = Path("reports"), reports_dir: Path | None = None) -> dict[str, Any]:
        """Write report-<index_rev>.html (self-contained, inline SVG charts) and .md into `out_dir`: status and
        coverage, degradations, golden metrics and trend, benchmarks, top actors/skills, recent runs.
        `reports_dir` holds the eval/bench/quality files read (default `out_dir`)."""
        from warehouse.core.paths import private_dir
        from warehouse.reports.collect import collect
        from warehouse.reports.render import render

        self._require_admin("report")
        private = Path(out_dir).resolve().is_relative_to(self.paths.home.resolve())  # under AKW_HOME: 0700/0600
        if private:
            private_dir(Path(out_dir))
        out = _writable_dir(Path(out_dir), "out")
        doc = collect(self.paths, self.settings, Path(reports_dir) if reports_dir is not None else out)
        return {"index_rev": doc["status"]["index_rev"], "state": doc["status"]["state"],
                "snippets": doc["snippets"], "files": render(doc, out, private=private)}

    def reports(self, reports_dir: Path = Path("reports")) -> dict[str, Any]:
        """The eval, bench and quality report files in `reports_dir` as histories, oldest first."""
        from warehouse.reports.history import history

        return history(Path(reports_dir))

    # -- generated data, demo, quality gates (no existing home needed) -------------
    @staticmethod
    def generate_fixtures(out: Path, sessions: int = 24, seed: int = 7, events: int | None = None,
                          broken: bool = False, progress: FixtureProgress | None = None,
                          claude_code_sessions: int = 0, codex_sessions: int = 0) -> dict[str, Any]:
        """Write realistic DSH/AutoClaw/workspace sources with a ground-truth manifest into `out`; with
        `claude_code_sessions`/`codex_sessions`, Claude Code and Codex homes too (`claude/`, `codex/`)."""
        import akw_fixtures  # the test-data generator is never loaded by search-only processes

        out = _writable_dir(Path(out), "out").absolute()
        manifest = akw_fixtures.generate(out, sessions=sessions, seed=seed, events=events, broken=broken,
                                         progress=progress, claude_code_sessions=claude_code_sessions,
                                         codex_sessions=codex_sessions)
        env = {"DSH_HOME": str(out / "dsh"), "AUTOCLAW_ROOT": str(out / "autoclaw")}
        if claude_code_sessions:
            env["CLAUDE_CONFIG_DIR"] = str(out / "claude")
        if codex_sessions:
            env["CODEX_HOME"] = str(out / "codex")
        env["AKW_HOME"] = str(out / "akw-home")  # where to index it (the demo's and eval's convention)
        return {"out": str(out), "counts": manifest.get("counts", {}), "env": env}

    @classmethod
    def demo(cls, out: Path = Path("demo"), sessions: int = 24, seed: int = 7, progress: Progress | None = None,
             log: Log | None = None) -> dict[str, Any]:
        """Generate data into `out` (unless present), index it, run the UJ-1/2/4 searches, the UJ-3 dispatch
        (dry run, confirmed commit, the outbox package) and UJ-5 status."""
        from warehouse.evaluation.demo import run_demo

        return run_demo(cls, _writable_dir(Path(out), "out"), sessions, seed, progress, log)

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
        if not golden.is_file() and not any(golden.glob("*.yaml")):
            raise KnowledgeError(Code.INVALID_REQUEST, f"golden: no such file or folder of *.yaml {golden}",
                                 field="golden")
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
              log: Log | None = None, team_catalog: str | None = None, team: bool = False,
              only: str | None = None) -> dict[str, Any]:
        """Build times, search latency per mode, peak RSS and size at one scale, against a SQLite FTS5 baseline.

        `team`: also push throughput and build-from-snapshot time, on `team_catalog` (a scratch PostgreSQL
        database's DSN) or, without one, on a throwaway cluster of the local PostgreSQL binaries.
        `only="team"`: just one local cold build and the team phases."""
        import tempfile

        from warehouse.bench.run import SCALES, run_bench

        if scale not in SCALES:
            raise KnowledgeError(Code.INVALID_REQUEST, f"scale: one of {', '.join(SCALES)}", field="scale")
        folder = _writable_dir(Path(work or Path(tempfile.gettempdir()) / "akw-bench"), "work")
        out = _writable_dir(Path(out_dir), "out") if out_dir is not None else None
        if team_catalog is not None:
            Settings().with_value("lake.catalog", json.dumps(team_catalog))  # no password in a DSN, here too
        return run_bench(SCALES[scale], folder, out, log=log, team_catalog=team_catalog, team=team, only=only)


def semantic_note() -> dict[str, str]:
    """What turning semantic search on means: local, and what to run (or install) next."""
    from warehouse.core import embed

    if not embed.installed():
        err = embed.not_installed_error()
        return {"code": err.code, "message": err.message}
    return {"code": "KNOWLEDGE_SEMANTIC_LOCAL",
            "message": f"semantic search is local: the {embed.MODEL} model runs on this machine and no text leaves "
                       "it; run `akw reindex` to embed the episodes and skills"}
