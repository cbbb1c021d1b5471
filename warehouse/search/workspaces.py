"""`filters.workspaces` → the workspaces it names: by id, by path, by folder name or by title.

A user types what they know of a workspace: `shop-api` (its folder), `/home/me/work/shop-api`
(its path), `shop-api-afd64283` (its id) or its registry title. The generation's workspaces
(`queries/search/workspace_keys.sql`: the searchable documents' (workspace_id, workspace_path) pairs and
the registry's workspaces without documents) are read once when the engine opens a generation,
so resolving a filter costs no SQL: each value becomes the `ak_document.ws_no` numbers of the
workspaces it names, and a value that names none is reported back (a warning, never silence).

Matching: an exact id or path (normalised: `~` expanded, no trailing `/`) wins; only a value that
is neither is compared with folder names and titles, case-insensitively (`Shop-API` = `shop-api`).
A name shared by two workspaces names both.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import NamedTuple

import duckdb

from warehouse.core.sqlfiles import query_sql


class Resolved(NamedTuple):
    """What a workspace filter resolved to: the ws_no numbers to test, and the values naming nothing."""

    ws_nos: list[int]  # sorted, distinct; empty when nothing (known) has documents
    unknown: list[str]  # filter values that name no workspace, in request order
    named: bool = False  # some value named a known workspace (its global skills then stay visible)


def _norm_path(value: str) -> str:
    return os.path.normpath(os.path.expanduser(value)) if value else value


def _fold(value: str | None) -> str:
    return " ".join((value or "").split()).casefold()


@dataclass
class WorkspaceIndex:
    """The workspaces of one generation, keyed by what a filter may call them."""

    rows: list[tuple[int | None, str | None, str | None, str | None, str | None]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._exact: dict[str, set[int]] = {}  # id or normalised path -> row indexes
        self._named: dict[str, set[int]] = {}  # folded folder name or title -> row indexes
        for n, (_, ws_id, ws_path, folder, title) in enumerate(self.rows):
            for key in (ws_id, _norm_path(ws_path or "")):
                if key:
                    self._exact.setdefault(key, set()).add(n)
            name = os.path.basename(_norm_path(folder)) if folder else ""
            for key in (_fold(name), _fold(title)):
                if key:
                    self._named.setdefault(key, set()).add(n)

    @classmethod
    def read(cls, con: duckdb.DuckDBPyConnection) -> WorkspaceIndex:
        """Once per generation: a few rows (one per workspace and path), not one per document."""
        return cls([tuple(r) for r in con.execute(query_sql("workspace_keys")).fetchall()])

    def resolve(self, values: list[str]) -> Resolved:
        """The ws_no numbers of every workspace the values name (by its id or path: all its pairs)."""
        ids: set[str] = set()
        paths: set[str] = set()
        unknown: list[str] = []
        for value in values:
            hit = self._exact.get(value) or self._exact.get(_norm_path(value.strip())) or self._named.get(_fold(value))
            if not hit:
                unknown.append(value)
                continue
            for n in hit:
                _, ws_id, ws_path, folder, _ = self.rows[n]
                if ws_id:
                    ids.add(ws_id)
                for p in (ws_path, folder):
                    if p:
                        paths.add(_norm_path(p))
        ws_nos = sorted({ws_no for ws_no, ws_id, ws_path, _, _ in self.rows if ws_no is not None
                         and (ws_id in ids or (ws_path is not None and _norm_path(ws_path) in paths))})
        return Resolved(ws_nos, unknown, named=bool(ids or paths))

    def names(self, limit: int = 10) -> list[str]:
        """Folder names of the known workspaces (for a warning's hint), sorted, at most `limit`."""
        found = sorted({os.path.basename(_norm_path(f)) for _, _, _, f, _ in self.rows if f})
        return found[:limit]
