"""Shared by the access tests: generated sources, a built home, principals, and leak markers.

Three principals over generated data: alice and bob overlap (both see shop-api), carol is disjoint
from both. Markers are what a principal must never see: the session and episode ids of sessions it
has no right to, the folders of workspaces and AutoClaw accounts it has no right to, and the titles
of episodes it cannot see — each kept only if it appears nowhere in what the principal may see
(generated texts cross-reference one another; a string the principal's own documents carry is no leak).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from homes import BuiltHome

from warehouse.api import Warehouse
from warehouse.core.settings import Settings

QUERIES = (
    "Кто уже занимался переносом сайта iya.ru на новый сервер?", "deploy-iya-ru skill for a deployment",
    "what do we know about renewing TLS certificates", "restore MySQL access on 176.99.5.35",
    "nginx config", "agent that reviews database migrations", "telegram bot handler", "backup postgres",
    "clean BOM and CRLF in text files", "disk usage triage", "systemd unit restart", "api.shop-example.com orders",
)
MODES = ("auto", "find_agent", "find_code", "find_skill")


def build(home24: BuiltHome, root: Path) -> tuple[Path, Warehouse]:
    """A private copy of the shared 24-session home (conftest `home24`) at `root`, its accounts read."""
    wh = home24.copy(root / "home")
    accounts(wh)
    return home24.src, wh


_ACCOUNTS: dict[Path, list[str]] = {}


def accounts(wh: Warehouse) -> list[str]:
    """Read once per home, before any search (`Warehouse.sql` after a search in one process is a known
    bug another branch mends: DuckDB refuses a second configuration of the same file)."""
    if wh.paths.home not in _ACCOUNTS:
        _ACCOUNTS[wh.paths.home] = [r[0] for r in wh.sql("SELECT account FROM ak_acl_account ORDER BY account")["rows"]]
    return _ACCOUNTS[wh.paths.home]


def principals(wh: Warehouse) -> dict[str, dict[str, list[str]]]:
    a, b = accounts(wh)[:2]
    return {
        "alice@example.com": {"workspaces": ["iya-site", "shop-api"], "autoclaw_accounts": [a],
                              "skills_roots": ["dsh_home"]},
        "bob@example.com": {"workspaces": ["infra-ops-73f9d027", "shop-api"], "autoclaw_accounts": [b]},
        "carol@example.com": {"workspaces": ["text-tools"]},
    }


def access_settings(wh: Warehouse, **extra: str) -> Settings:
    s = wh.settings.with_value("access.enabled", "true").with_value("access.principals",
                                                                    json.dumps(principals(wh)))
    for k, v in extra.items():
        s = s.with_value(f"access.{k}", v)
    return s


def as_(wh: Warehouse, who: str, **extra: str) -> Warehouse:
    return Warehouse(wh.paths, access_settings(wh, **extra), principal=who)


def _rows(wh: Warehouse, sql: str) -> list[list[Any]]:
    return wh.sql(sql, limit=100_000)["rows"]


def markers(wh: Warehouse, who: str) -> set[str]:
    """Strings `who` must never be shown (see the module doc); `wh` reads with access off."""
    rights = {"workspaces": [], "autoclaw_accounts": [], **principals(wh)[who]}
    ws = {r[0] for r in _rows(wh, "SELECT workspace_id, path, name, title FROM ak_acl_workspace")
          if r[0] in rights["workspaces"] or r[2] in rights["workspaces"]}
    seen_sessions = {r[1] for r in _rows(wh, "SELECT source, session_id, grant_key FROM ak_acl_session")
                     if r[2] in ws or r[2] in rights["autoclaw_accounts"]}
    sessions = _rows(wh, "SELECT source, session_id, grant_key FROM ak_acl_session")
    hidden = {r[1] for r in sessions if r[1] not in seen_sessions}
    found = set(hidden)
    found |= {r[0] for r in _rows(wh, "SELECT episode_id FROM ak_episode WHERE session_id IN "
                                       f"(SELECT unnest({sorted(hidden)!r}))") if r[0]}
    found |= {r[1] for r in _rows(wh, "SELECT workspace_id, path FROM ak_acl_workspace") if r[1] and r[0] not in ws}
    found |= {f"accounts/{a}" for a in accounts(wh) if a not in rights["autoclaw_accounts"]}
    found |= {r[0] for r in _rows(wh, "SELECT DISTINCT title FROM ak_document WHERE lane = 'episodes' AND "
                                       f"kind = 'episode' AND session_id IN (SELECT unnest({sorted(hidden)!r}))")
              if r[0] and len(r[0]) >= 16}
    roots = rights.get("skills_roots", [])
    skills = _rows(wh, "SELECT name, root_kind, root_path, workspace_id, account FROM stg_skills")
    seen_names = {n for n, kind, path, w, a in skills if kind in roots or path in roots or w in ws
                  or a in rights["autoclaw_accounts"]}
    found |= {n for n, *_ in skills if n and len(n) >= 6 and n not in seen_names}
    mine = " ".join(str(x) for r in _rows(wh, "SELECT title, text, session_id, workspace_path, path FROM ak_document "
                                              "WHERE session_id IN (SELECT unnest("
                                              f"{sorted(seen_sessions) or ['-']!r})) OR (lane = 'code' AND "
                                              f"list_contains({sorted(ws) or ['-']!r}, workspace_id))")
                    for x in r if x)
    return {m for m in found if m and m not in mine}


def leaks(doc: Any, marks: set[str]) -> list[str]:
    """The markers `doc` carries; a search response's echo of the caller's own query is not a leak."""
    if isinstance(doc, dict) and doc.get("schema") == "knowledge.search/v1":
        doc = {k: v for k, v in doc.items() if k != "query"}
    text = json.dumps(doc, ensure_ascii=False)
    return sorted(m for m in marks if m in text)
