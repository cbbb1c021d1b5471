"""The skill card (`knowledge_get_skill`, FR-6, AC-6): everything the index knows about one skill.

Front matter and the full SKILL.md body (`stg_skills`), resources by path, size, hash and kind —
never their content (`stg_skill_resources`), references the body makes to files that do not exist
(flagged by the extractor, never invented), version/hash/ledger/bundles/tombstone and the copies of
the same name in other roots (duplicates when the hash is equal, conflicts when it differs), usage
(`ak_skill_use`), related skills and provenance. With `task`, `task_answer` answers the task
(`warehouse.cards.task_fit`).

A name held by several roots opens the copy the harness would bind first (workspace, then the
DSH home, extra dirs, AutoClaw; live before removed); `source` picks another (its skill_id, root
kind, account, workspace id or path), and the card lists the others under `related`.
"""

from __future__ import annotations

import re
from typing import Any

import duckdb

from warehouse.cards.contract import (
    MAX_LIST,
    AgentSkillUser,
    Evidence,
    Notice,
    Provenance,
    Related,
    Resource,
    SkillCard,
    SkillSource,
    SkillUsage,
    SkillUse,
    Version,
    VersionEvent,
)
from warehouse.cards.lookup import Budget, iso, json_or_none, not_found, one, rows
from warehouse.cards.task_fit import task_answer
from warehouse.cards.texts import TEXTS, Lang, say, word

ROOT_ORDER = ("workspace_dsh", "workspace_agents", "dsh_home", "extra", "claude_home", "codex_home", "autoclaw")
_ROLE_DIRS = {"scripts": "script", "script": "script", "bin": "script", "reference": "reference",
              "references": "reference", "docs": "reference", "doc": "reference", "assets": "asset",
              "asset": "asset", "templates": "template", "template": "template", "examples": "example"}
_SCRIPT_EXT = (".py", ".sh", ".js", ".ts", ".mjs", ".rb", ".pl", ".ps1", ".bash")


def source_label(s: dict[str, Any]) -> str:
    """How a root is named for people: `autoclaw:<account>`, `workspace_dsh:<workspace>`, `dsh_home`."""
    extra = s.get("account") or s.get("workspace_id")
    return f"{s['root_kind']}:{extra}" if extra else s["root_kind"]


def resolve_skill(con: duckdb.DuckDBPyConnection, index_rev: str, name: str,
                  source: str | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the chosen skill row, every row of the same name) — by skill id / document key, else by name."""
    exact = one(con, "SELECT name FROM ak_skill WHERE skill_id = ?", [name]) or one(
        con, "SELECT title AS name FROM ak_document WHERE doc_key = ? AND lane = 'skills'", [name])
    by_id = name if exact else None
    wanted = exact["name"] if exact else name
    same = rows(con, "SELECT * FROM ak_skill WHERE name = ? ORDER BY skill_id", [wanted])
    if not same:
        raise not_found("skill", name, index_rev, "give a skill name or ak_skill.skill_id (search: skills items)")
    if by_id is not None:
        picked = [s for s in same if s["skill_id"] == by_id] or same
    elif source:
        picked = [s for s in same if source in (s["skill_id"], s["root_kind"], s["account"], s["workspace_id"],
                                                s["root_path"], s["path"], s["rel_dir"], source_label(s))]
        if not picked:
            raise not_found("skill", f"{name} ({source})", index_rev,
                            "sources holding this name: " + ", ".join(source_label(s) for s in same))
    else:
        picked = same
    picked = sorted(picked, key=lambda s: (s["status"] != "live", _root_rank(s["root_kind"]), s["skill_id"]))
    return picked[0], same


def _root_rank(kind: str) -> int:
    return ROOT_ORDER.index(kind) if kind in ROOT_ORDER else len(ROOT_ORDER)


def skill_card(con: duckdb.DuckDBPyConnection, index_rev: str, name: str, source: str | None, task: str | None,
               budget: Budget, lang: Lang = "en") -> SkillCard:
    """`lang`: the language of the card's own texts (notices, notes, the task answer), decided once by the caller."""
    s, same = resolve_skill(con, index_rev, name, source)
    sid = s["skill_id"]
    body = (one(con, "SELECT body FROM stg_skills WHERE skill_id = ?", [sid]) or {}).get("body")
    notices = []
    if len(same) > 1 and source is None and name != sid:
        others = ", ".join(source_label(x) for x in same if x["skill_id"] != sid)
        notices.append(Notice(code="ambiguous_name", message=say("skill.ambiguous", lang, n=len(same),
                                                                 this=source_label(s), others=others)))
    if s["status"] == "removed":
        notices.append(Notice(code="removed", message=say("skill.removed", lang)))
    resources = _resources(con, sid, body or "")
    usage = _usage(con, s)
    card = SkillCard(
        index_rev=index_rev, skill_id=sid, name=s["name"],
        source=SkillSource(root_kind=s["root_kind"], root_path=s["root_path"], workspace_id=s["workspace_id"],
                           account=s["account"], path=s["path"], rel_dir=s["rel_dir"]),
        status=s["status"], description=budget.text("description", s["description"], 2000),
        when_to_use=budget.text("when_to_use", s["when_to_use"], 2000),
        disable_model_invocation=s["disable_model_invocation"], user_invocable=s["user_invocable"],
        license=s["license"], allowed_tools=list(s["allowed_tools"] or []),
        front_matter=_front_matter(s),
        body=budget.text("body", body), body_chars=len(body or ""),
        resources=resources, missing_references=list(s["referenced_missing"] or []),
        version=_version(s, same, lang), usage=usage, related=_related(con, s, same, lang),
        provenance=_provenance(s, index_rev, lang),
        notices=notices,
    )
    if task:
        card.task_answer = task_answer(con, task, s, body or "", resources, card.related, usage, lang)
    card.truncated = budget.cuts
    return card


def _front_matter(s: dict[str, Any]) -> dict[str, Any]:
    """The front matter as the index holds it: the known keys, `metadata`, then any other keys."""
    fm: dict[str, Any] = {"name": s["name"]}
    for key, col in (("description", "description"), ("whenToUse", "when_to_use"), ("license", "license"),
                     ("disable-model-invocation", "disable_model_invocation"), ("user-invocable", "user_invocable")):
        if s[col] is not None:
            fm[key] = s[col]
    if s["allowed_tools"]:
        fm["allowed-tools"] = list(s["allowed_tools"])
    meta = json_or_none(s["metadata_json"])
    if meta is not None:
        fm["metadata"] = meta
    extra = json_or_none(s["frontmatter_json"])
    if isinstance(extra, dict):
        fm.update({k: v for k, v in extra.items() if k not in fm})
    return fm


def _role(path: str, binary: bool) -> str:
    top = path.split("/", 1)[0].lower() if "/" in path else ""
    if top in _ROLE_DIRS:
        return _ROLE_DIRS[top]
    name = path.rsplit("/", 1)[-1].lower()
    if name.startswith(("license", "licence", "copying")):
        return "license"
    if name.endswith(_SCRIPT_EXT):
        return "script"
    if binary:
        return "asset"
    return "reference" if name.endswith((".md", ".txt", ".rst")) else "other"


def _resources(con: duckdb.DuckDBPyConnection, sid: str, body: str) -> list[Resource]:
    out = []
    for r in rows(con, "SELECT rel_path, size, sha256, is_binary FROM stg_skill_resources WHERE skill_id = ? "
                       "ORDER BY rel_path", [sid]):
        path = r["rel_path"]
        base = path.rsplit("/", 1)[-1]
        mentioned = path in body or bool(re.search(rf"(?<![\w.-]){re.escape(base)}(?![\w-])", body))
        out.append(Resource(path=path, size=r["size"], sha256=r["sha256"],
                            kind="binary" if r["is_binary"] else "text", role=_role(path, bool(r["is_binary"])),
                            mentioned=mentioned))
    return out


def _version(s: dict[str, Any], same: list[dict[str, Any]], lang: Lang = "en") -> Version:
    hist = [VersionEvent(event="current", version=s["version"], content_hash=s["content_hash"], at=None,
                         skill_id=s["skill_id"], source=source_label(s),
                         note=say("version.status", lang, status=word("status", s["status"], lang)))]
    for x in same:
        label = source_label(x)
        if x["deployed_at"] or x["ledger_sha256"]:
            match = {True: say("version.ledger_match", lang), False: say("version.ledger_differs", lang), None: None}
            hist.append(VersionEvent(event="deployed", version=x["version"],
                                     content_hash=f"sha256:{x['ledger_sha256']}" if x["ledger_sha256"] else None,
                                     at=x["deployed_at"], skill_id=x["skill_id"], source=label,
                                     note=match[x["ledger_matches"]]))
        if x["status"] == "removed":
            hist.append(VersionEvent(event="removed", version=x["version"], at=x["removed_at"],
                                     skill_id=x["skill_id"], source=label, note=say("version.tombstone", lang)))
        if x["skill_id"] != s["skill_id"]:
            same_hash = x["content_hash"] == s["content_hash"]
            hist.append(VersionEvent(event="copy", version=x["version"], content_hash=x["content_hash"],
                                     skill_id=x["skill_id"], source=label,
                                     note=say("version.same" if same_hash else "version.different", lang)))
    order = {"current": 0, "deployed": 1, "removed": 2, "copy": 3}
    hist.sort(key=lambda h: (order[h.event], h.at or "", h.skill_id))
    return Version(version=s["version"], content_hash=s["content_hash"], size=s["size"], status=s["status"],
                   removed_at=s["removed_at"], deployed_at=s["deployed_at"], ledger_sha256=s["ledger_sha256"],
                   ledger_matches=s["ledger_matches"], bundles=list(s["bundles"] or []), history=hist)


def _usage(con: duckdb.DuckDBPyConnection, s: dict[str, Any]) -> SkillUsage:
    uses = rows(con, """
        SELECT u.episode_id, u.actor_id, u.time, u.outcome, u.via, u.session_id, u.seq,
               coalesce(d.doc_key, ev.event_id) AS evidence_id, d.doc_key IS NOT NULL AS is_doc
        FROM ak_skill_use u
        LEFT JOIN ak_document d ON d.session_id = u.session_id AND d.seq = u.seq AND d.lane = 'episodes'
        LEFT JOIN ak_event ev ON ev.session_id = u.session_id AND ev.seq = u.seq
        WHERE u.skill_id = ?
        ORDER BY u.time DESC NULLS LAST, u.skill_use_id""", [s["skill_id"]])
    outcomes: dict[str, int] = {}
    for u in uses:
        outcomes[u["outcome"]] = outcomes.get(u["outcome"], 0) + 1
    by_actor = rows(con, """
        SELECT u.actor_id, any_value(a.display_name) AS display_name, count(*) AS uses, max(u.time) AS last_used_at
        FROM ak_skill_use u LEFT JOIN ak_actor a USING (actor_id)
        WHERE u.skill_id = ? AND u.actor_id IS NOT NULL
        GROUP BY u.actor_id ORDER BY uses DESC, last_used_at DESC NULLS LAST, u.actor_id""", [s["skill_id"]])
    elsewhere = one(con, "SELECT count(*) AS n FROM ak_skill_use WHERE skill_name = ? AND skill_id IS DISTINCT FROM ?",
                    [s["name"], s["skill_id"]]) or {"n": 0}
    times = [u["time"] for u in uses if u["time"] is not None]
    recent = [SkillUse(episode_id=u["episode_id"], actor_id=u["actor_id"], time=iso(u["time"]), outcome=u["outcome"],
                       via=u["via"],
                       evidence=Evidence(kind="document" if u["is_doc"] else "event",
                                         id=u["evidence_id"] or u["episode_id"],
                                         note=f"{u['session_id']}#seq={u['seq']}"))
              for u in uses[:MAX_LIST]]
    return SkillUsage(uses=len(uses), actors=len(by_actor), first_used_at=iso(min(times)) if times else None,
                      last_used_at=iso(max(times)) if times else None, outcomes=dict(sorted(outcomes.items())),
                      by_actor=[AgentSkillUser(actor_id=b["actor_id"], display_name=b["display_name"], uses=b["uses"],
                                               last_used_at=iso(b["last_used_at"])) for b in by_actor],
                      recent=recent, uses_of_same_name_elsewhere=int(elsewhere["n"]))


def _related(con: duckdb.DuckDBPyConnection, s: dict[str, Any], same: list[dict[str, Any]],
             lang: Lang = "en") -> list[Related]:
    out = []
    for x in same:
        if x["skill_id"] == s["skill_id"]:
            continue
        dup = x["content_hash"] is not None and x["content_hash"] == s["content_hash"]
        out.append(Related(name=x["name"], skill_id=x["skill_id"], source=source_label(x),
                           relation="duplicate" if dup else "conflict", content_hash=x["content_hash"],
                           note=say("related.duplicate" if dup else "related.conflict", lang)))
    if s["bundles"]:
        for b in rows(con, """
                SELECT skill_id, name, root_kind, account, workspace_id, content_hash,
                       list_intersect(bundles, ?) AS shared
                FROM ak_skill WHERE account IS NOT DISTINCT FROM ? AND skill_id <> ?
                  AND len(list_intersect(bundles, ?)) > 0
                ORDER BY name, skill_id""", [list(s["bundles"]), s["account"], s["skill_id"], list(s["bundles"])]):
            out.append(Related(name=b["name"], skill_id=b["skill_id"], source=source_label(b), relation="bundle",
                               content_hash=b["content_hash"],
                               note=say("related.bundle", lang, bundles=", ".join(sorted(b["shared"])))))
    for c in rows(con, """
            SELECT o.skill_name AS name, min(o.skill_id) AS skill_id, count(DISTINCT o.episode_id) AS episodes
            FROM ak_skill_use u JOIN ak_skill_use o ON o.episode_id = u.episode_id AND o.skill_name <> u.skill_name
            WHERE u.skill_id = ? GROUP BY o.skill_name ORDER BY episodes DESC, name LIMIT 10""", [s["skill_id"]]):
        if c["skill_id"] is None:
            continue
        row = one(con, "SELECT root_kind, account, workspace_id, content_hash FROM ak_skill WHERE skill_id = ?",
                  [c["skill_id"]]) or {"root_kind": "unknown"}
        out.append(Related(name=c["name"], skill_id=c["skill_id"], source=source_label(row), relation="co_used",
                           content_hash=row.get("content_hash"), note=say("related.co_used", lang, n=c["episodes"])))
    return out


def _provenance(s: dict[str, Any], index_rev: str, lang: Lang = "en") -> Provenance:
    kind = s["root_kind"]
    origin = say(f"origin.{kind}", lang, workspace=s["workspace_id"], account=s["account"]) if (
        f"origin.{kind}" in TEXTS) else kind
    verify = []
    if s["path"] and s["content_hash"]:
        verify.append(say("verify.sha256sum", lang, path=s["path"], sha=s["content_hash"].removeprefix("sha256:")))
    if s["ledger_sha256"]:
        state = {True: "match", False: "differs", None: "unknown"}[s["ledger_matches"]]
        verify.append(say(f"verify.ledger_{state}", lang, sha=s["ledger_sha256"]))
    verify.append(f"akw sql \"SELECT * FROM ak_skill WHERE skill_id = '{s['skill_id']}'\"")
    return Provenance(origin=origin, path=s["path"], content_hash=s["content_hash"], verify=verify,
                      indexed_in=index_rev)
