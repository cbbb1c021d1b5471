"""The Python API: one function per operation; the CLI, MCP server and notebooks all call these."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from warehouse.errors import Code, KnowledgeError
from warehouse.paths import Paths
from warehouse.search.contract import response_dict
from warehouse.search.service import SearchEngine
from warehouse.settings import Settings
from warehouse.state import load_all_units

if TYPE_CHECKING:  # the extract stack (polars, pyarrow) is imported only by processes that extract
    from warehouse.extract.base import Progress


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
                wait_s: float = 0.0) -> dict[str, Any]:
        from warehouse.build import reindex

        return reindex(self.paths, self.settings, mode=mode, progress=progress, wait_s=wait_s)

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
        return response_dict(self.engine.search(request))

    def search_text(self, query: str, mode: str = "auto", limit: int = 10,
                    workspaces: list[str] | None = None, **extra: Any) -> dict[str, Any]:
        """Convenience for notebooks: build the request from a query and a few options."""
        req: dict[str, Any] = {"schema": "knowledge.search/v1", "query": query, "mode": mode, "limit": limit,
                               **extra}
        if workspaces:
            req.setdefault("filters", {})["workspaces"] = workspaces
        return self.search(req)

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
