"""Who may see what (issue 16, seed 004): a principal's rights resolved against the ACL tables.

The principal comes from the process configuration (`access.principal`, `AKW_PRINCIPAL`) or from a
surface's session (the MCP server) — never from a request. `scope_for` turns the settings into a
`Scope` (None: access control is off, the local user sees everything local); with access on and
no principal every read is refused (KNOWLEDGE_NO_PRINCIPAL, fail closed). A principal the
settings do not list has no rights: it sees nothing, and is told nothing more.

`materialise` resolves a scope on one generation: its workspace names, accounts and skill roots
become ak_acl_* keys, and the documents they grant become a temp table on the lane cursor
(`akw_allow_<hash>`) and a bitstring variable beside it (the same name; bit doc_id set = visible),
made once per cursor, generation and principal's rights. The lane queries probe the bitstring
before ranking (`allow_clause`, sql/queries/search/lexical_allow.sql), so a forbidden document never
enters scoring, fusion, actors, counts, snippets or why-texts. The `View` also holds the actors,
episodes, sessions, chunks and skills the principal sees in full, to which actor rows, skill usage,
cards and dispatch are held.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from warehouse.core import db
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.settings import Rights, Settings
from warehouse.core.sqlfiles import query_sql, render
from warehouse.search.workspaces import WorkspaceIndex

REFUSED_FIELDS = ("principal", "identity", "user")  # identity is never a request's to give
LOCAL_WRITER = "local"  # a local build's documents, when `lake.writer_id` is unset (docs/access.md)


@dataclass(frozen=True)
class Scope:
    """One principal's rights as configured, plus what late binding and hints need."""

    principal: str
    rights: Rights
    others: tuple[tuple[str, Rights], ...] = ()  # the other configured principals (hint authors)
    hints: bool = True
    live_roots: tuple[Path, Path] | None = None  # (dsh_home, autoclaw_root) for the live check; None: off
    local_writer: str = LOCAL_WRITER  # the writer of a local build's documents (`lake.writer_id`)

    @property
    def key(self) -> str:
        """Stable per principal and rights: names the temp table and keys the caches."""
        text = json.dumps([self.principal, self.rights.model_dump()], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def scope_for(settings: Settings, principal: str | None = None,
              live_roots: tuple[Path, Path] | None = None) -> Scope | None:
    """The scope of a read: None with access off; `principal` is a surface's session identity."""
    acc = settings.access
    if not acc.enabled:
        return None
    who = (principal or acc.principal or "").strip()
    if not who:
        raise KnowledgeError(Code.NO_PRINCIPAL, "access control is on and no principal is configured "
                             "(akw config set access.principal=<e-mail> or AKW_PRINCIPAL)")
    folded = {k.casefold(): (k, v) for k, v in acc.principals.items()}
    rights = folded.get(who.casefold(), (who, Rights()))[1]
    others = tuple(sorted((k, v) for k, v in acc.principals.items() if k.casefold() != who.casefold()))
    return Scope(who, rights, others, acc.hidden_hints, live_roots if acc.live_check else None,
                 settings.lake.writer_id or LOCAL_WRITER)


def refuse_identity_fields(data: Any, what: str = "request") -> None:
    """A request (or its filters) naming an identity is refused: identity comes from configuration."""
    if not isinstance(data, dict):
        return
    for where, doc in (("", data), ("filters.", data.get("filters"))):
        if isinstance(doc, dict):
            for name in REFUSED_FIELDS:
                if name in doc:
                    raise KnowledgeError(Code.INVALID_REQUEST,
                                         f"{where}{name}: a {what} cannot name an identity; the principal "
                                         "comes from the configuration or the session", field=f"{where}{name}")


@dataclass(frozen=True)
class Grants:
    """A principal's rights as ak_acl_* keys of one generation."""

    workspaces: tuple[str, ...] = ()
    accounts: tuple[str, ...] = ()
    roots: tuple[str, ...] = ()
    writers: tuple[str, ...] | None = None  # None: every writer (`writers` not configured)
    local_writer: str = LOCAL_WRITER

    def params(self) -> list[Any]:
        """$1 workspaces, $2 accounts, $3 roots, $4 writers (NULL: all), $5 the local build's writer."""
        writers = None if self.writers is None else list(self.writers)
        return [list(self.workspaces), list(self.accounts), list(self.roots), writers, self.local_writer]

    def holds(self, kind: str, key: str) -> bool:
        return key in {"workspace": self.workspaces, "autoclaw_account": self.accounts,
                       "skills_root": self.roots}.get(kind, ())


def _norm(path: str) -> str:
    return os.path.normpath(os.path.expanduser(path)) if path else path


def _fold(value: str | None) -> str:
    return " ".join((value or "").split()).casefold()


@dataclass
class Catalog:
    """The ACL names of one generation (a few rows: workspaces and skill roots), read once."""

    workspaces: list[tuple[str, str | None, str | None, str | None]] = field(default_factory=list)
    roots: list[tuple[str, str | None]] = field(default_factory=list)

    @classmethod
    def read(cls, con: duckdb.DuckDBPyConnection) -> Catalog:
        return cls([tuple(r) for r in con.execute(query_sql("access_workspaces")).fetchall()],
                   [tuple(r) for r in con.execute(query_sql("access_roots")).fetchall()])

    def grants(self, rights: Rights, local_writer: str = LOCAL_WRITER) -> Grants:
        """Workspaces by id, path, folder name or title; roots by path or kind; accounts as given."""
        ws: set[str] = set()
        for value in rights.workspaces:
            v, p, f = value.strip(), _norm(value.strip()), _fold(value)
            for wid, path, name, title in self.workspaces:
                if v == wid or (path and p == _norm(path)) or (f and f in (_fold(name), _fold(title))):
                    ws.add(wid)
        roots: set[str] = set()
        for value in rights.skills_roots:
            p = _norm(value.strip())
            roots.update(path for path, kind in self.roots if p == _norm(path) or value.strip() == kind)
        accounts = {a.strip() for a in rights.autoclaw_accounts if a.strip()}
        writers = None if rights.writers is None else tuple(sorted({w.strip() for w in rights.writers if w.strip()}))
        return Grants(tuple(sorted(ws)), tuple(sorted(accounts)), tuple(sorted(roots)), writers, local_writer)


@dataclass(frozen=True)
class View:
    """What one principal sees of one generation (the temp table `table` on the cursor it was made on)."""

    scope: Scope
    grants: Grants
    table: str
    actors: frozenset[str]
    episodes: frozenset[str]
    sessions: frozenset[str]
    chunks: frozenset[str]
    skills: frozenset[str]
    lane_docs: dict[str, int]
    ws_nos: frozenset[int] = frozenset()  # workspaces of its documents (what its filters may name)
    bits: str = ""  # the bitstring variable of its documents on that cursor (sql/queries/search/access_bits.sql)
    allowed: str | None = field(default=None, repr=False)  # that bitstring as text (other cursors: side_worker)
    # per-view memos: where documents live, for the live check (guard.trim: doc_id -> access_live.sql row,
    # skill key -> file), and the cut workspace index (`workspaces`)
    places: tuple[dict[int, Any], dict[str, str], dict[int, Any]] = field(
        default_factory=lambda: ({}, {}, {}), compare=False, repr=False)
    # every right of the generation (source, grant kind, grant key) with its documents' bits (bit n = doc_id n)
    rights: tuple[tuple[tuple[str, str, str], bytes], ...] = ()

    def workspaces(self, index: WorkspaceIndex) -> WorkspaceIndex:
        """The workspace filter's index cut to this principal's workspaces: another's workspace is an
        unknown name to it (warned as such), and the warning's hint lists only its own."""
        memo = self.places[2]  # the index is fixed per generation, as this view is: cut it once
        if id(index) not in memo:
            memo.clear()
            rows = [r for r in index.rows if (r[0] is not None and r[0] in self.ws_nos)
                    or (r[1] is not None and r[1] in self.grants.workspaces)]
            memo[id(index)] = (index, WorkspaceIndex(rows))  # the index itself kept: its id stays unique
        return memo[id(index)][1]

    def allow_clause(self) -> str:
        """The pre-filter on ak_document alias `d`, for a lane query's trusted predicate (a bit probe)."""
        return f"get_bit(getvariable('{self.bits}'), d.doc_id::INTEGER) = 1"

    def hidden_clause(self) -> str:
        """Its complement: the relevant-but-hidden documents the content-free hint looks for."""
        return f"coalesce(get_bit(getvariable('{self.bits}'), d.doc_id::INTEGER), 0) = 0"

    def rights_of(self, doc_ids: list[int]) -> list[tuple[str, str, str]]:
        """The rights (source, grant kind, grant key) any of `doc_ids` holds, as access_rights.sql orders them."""
        return [r for r, bits in self.rights
                if any(0 <= d < len(bits) * 8 and bits[d >> 3] >> (7 - (d & 7)) & 1 for d in doc_ids)]

    def authors(self, catalog: Catalog, rights: list[tuple[str, str, str]]) -> dict[str, list[str]]:
        """source system -> the other principals holding a right of these hidden documents (sorted)."""
        out: dict[str, set[str]] = {}
        for who, r in self.scope.others:
            g = catalog.grants(r)
            for source, kind, key in rights:
                if g.holds(kind, key):
                    out.setdefault(source, set()).add(who)
        for source, _, _ in rights:
            out.setdefault(source, set())
        return {s: sorted(v) for s, v in out.items()}


def materialise(cur: duckdb.DuckDBPyConnection, scope: Scope, catalog: Catalog, for_search: bool = True) -> View:
    """The principal's document set as a temp table on `cur`, and the sets cards and actors are held to;
    `for_search` adds what only search probes (the bitstrings of its documents and of every right)."""
    grants = catalog.grants(scope.rights, scope.local_writer)
    table = f"akw_allow_{scope.key}"
    cur.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS " + query_sql("access_allowed").rstrip().rstrip(";"),
                grants.params())
    allowed, rights = None, ()
    if for_search:
        top = int(cur.execute(query_sql("access_max_doc")).fetchone()[0])
        cur.execute(render("access_bits", name=table, max=str(top), allow=table))
        allowed = cur.execute(render("access_bits_text", name=table)).fetchone()[0]
        rights = tuple(((str(a), str(b), str(c)), _bytes(bits)) for a, b, c, bits
                       in cur.execute(render("access_rights", max=str(top))).fetchall())
    sets: dict[str, set[str]] = {}
    lane_docs: dict[str, int] = {}
    for kind, ident in cur.execute(render("access_view", allow=table)).fetchall():
        if kind.startswith("lane:"):
            lane_docs[kind[5:]] = int(ident)
        else:
            sets.setdefault(kind, set()).add(ident)
    skills = {r[0] for r in cur.execute(query_sql("access_skills"), grants.params()).fetchall()}
    return View(scope, grants, table, frozenset(sets.get("actor", ())), frozenset(sets.get("episode", ())),
                frozenset(sets.get("session", ())), frozenset(sets.get("chunk", ())), frozenset(skills), lane_docs,
                frozenset(int(n) for n in sets.get("ws_no", ())), table, allowed, rights=rights)


def _bytes(bits: str | None) -> bytes:
    """A DuckDB BIT as text ('0110…', bit 0 first) -> bytes, bit n at byte n >> 3, mask 0x80 >> (n & 7)."""
    if not bits:
        return b""
    padded = bits + "0" * (-len(bits) % 8)
    return int(padded, 2).to_bytes(len(padded) // 8, "big")


def view_on(con: duckdb.DuckDBPyConnection, scope: Scope) -> View:
    """A one-off view on a connection of its own (cards, dispatch: no bitstrings, they run no lane query)."""
    return materialise(con, scope, Catalog.read(con), for_search=False)


# the card and dispatch keys whose values must all be visible, and the View set each is checked in
_KEYS = {"actor_id": "actors", "episode_id": "episodes", "session_id": "sessions", "sessions": "sessions",
         "episodes": "episodes", "parent_session_id": "sessions", "skill_id": "skills", "chunk_id": "chunks"}


def invisible(doc: Any, view: View) -> bool:
    """Whether a card (or a dispatch document) names anything the principal does not see in full.

    Cards aggregate (an agent's stats over all its episodes, a skill's usage and copies), so a card
    is shown only when every actor, episode, session, skill and chunk it names is visible."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            allowed = getattr(view, _KEYS[k]) if k in _KEYS else None
            if allowed is not None and isinstance(v, str) and v and v not in allowed:
                return True
            if allowed is not None and isinstance(v, list) and any(isinstance(x, str) and x not in allowed for x in v):
                return True
            if isinstance(v, dict | list) and invisible(v, view):
                return True
    elif isinstance(doc, list):
        return any(invisible(x, view) for x in doc)
    return False


# a result id's kind (warehouse/home/feedback.KINDS) -> the View set it must be in; other kinds are
# documents (memories, skill documents): held to the principal's document table
_ID_SETS = {"actor": "actors", "episode": "episodes", "skill": "skills", "code": "chunks"}


def sees_id(con: duckdb.DuckDBPyConnection, view: View, kind: str, ident: str) -> bool:
    """Whether the principal sees the item a result id names (feedback: an id it may not see is unknown)."""
    if kind in _ID_SETS and ident in getattr(view, _ID_SETS[kind]):
        return True
    row = con.execute(f"SELECT 1 FROM ak_document WHERE doc_key = ? AND doc_id IN (SELECT doc_id FROM {view.table})"
                      " LIMIT 1", [ident]).fetchone()
    return row is not None


def unit_filter(con: duckdb.DuckDBPyConnection, view: View) -> Callable[[dict[str, Any]], bool]:
    """Whether a principal may be told of a source unit (`akw sources`, `akw status` errors): its sessions,
    its AutoClaw accounts, its workspaces' code, the skill roots of skills it sees. Whole-home units (the
    DSH registry) and everything of another principal are left out, as if they did not exist."""
    skills = sorted(view.skills)
    roots = {r[0] for r in db.run(con, "SELECT DISTINCT root_path FROM stg_skills WHERE list_contains(?, skill_id)",
                                  [skills]).fetchall()} if skills else set()

    def sees(u: dict[str, Any]) -> bool:
        source, unit = u.get("source"), str(u.get("unit") or "")
        if source == "dsh":
            return unit.startswith("session:") and unit[len("session:"):] in view.sessions
        if source == "autoclaw":
            return unit.split(":", 1)[0] in view.grants.accounts
        if source == "code":
            return unit in view.grants.workspaces
        if source == "skills":  # "<root kind>:<root path>:<skill folder>"
            return ":" in unit and unit.split(":", 1)[1].rsplit(":", 1)[0] in roots
        return False

    return sees
