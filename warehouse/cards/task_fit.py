"""A skill card that answers a task (FR-6 with `task`): applicability, limits, typical errors, checklist.

Derived deterministically from indexed data, never by a model: task words (`lookup.terms`) are
matched against the front matter, the body's lines and headings, the resources and the episodes
that used the skill; errors come from failed tool results, retries (the same tool called again
after a failure) and failed runs of those episodes. Every point names its evidence (a front-matter
key, a body line, a resource, an episode, a document or event id). A skill with no `whenToUse`
and no recorded use still gets an answer, and the answer says what is missing.
"""

from __future__ import annotations

import re
from typing import Any

import duckdb

from warehouse.cards.contract import Evidence, Point, Related, Resource, SkillUsage, TaskAnswer
from warehouse.cards.lookup import matched, rows, terms
from warehouse.cards.texts import Lang, say, word
from warehouse.core.redact import redact
from warehouse.search.messages import outcome
from warehouse.search.snippets import clean, untrusted

MAX_POINTS = 5
_STEP = re.compile(r"^\s*(?:\d+[.)]|[-*+]\s+\[[ xX]\])\s+(.+)$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_PITFALLS = re.compile(r"(?i)pitfall|gotcha|limitation|caveat|warning|don'?ts|anti-pattern|red flag|"
                       r"ограничен|подводн|ошибк|осторожно")
_LIMIT = re.compile(r"(?i)\b(never|do not|don't|must not|only|avoid|warning|caution|important|not for|"
                    r"нельзя|никогда|не делай|не используй|только|осторожно|внимание)\b")


def _quote(text: str, chars: int = 200) -> str:
    text = clean(redact(text) or "")
    return untrusted(text if len(text) <= chars else text[: chars - 1] + "…")


def _body_lines(body: str) -> list[tuple[int, str]]:
    out, fence = [], False
    for n, line in enumerate(body.splitlines(), 1):
        if line.strip().startswith("```"):
            fence = not fence
            continue
        if not fence and line.strip():
            out.append((n, line))
    return out


def _line_ev(n: int) -> Evidence:
    return Evidence(kind="body_line", id=f"SKILL.md body:L{n}")


def task_answer(con: duckdb.DuckDBPyConnection, task: str, s: dict[str, Any], body: str,
                resources: list[Resource], related: list[Related], usage: SkillUsage,
                lang: Lang = "en") -> TaskAnswer:
    """`lang`: the language of the points' texts (the caller decided it once: core/language)."""
    words = terms(task)
    lines = _body_lines(body)
    meta = " ".join(x for x in (s["name"].replace("-", " "), s["description"] or "", s["when_to_use"] or "") if x)
    hit_terms = matched(words, f"{meta} {body}")
    episodes = _episodes(con, s)
    return TaskAnswer(task=task, terms=words, matched_terms=hit_terms,
                      applicability=_applicability(words, s, lines, resources, episodes, usage, lang),
                      limits=_limits(s, lines, resources, related, usage, lang),
                      typical_errors=_errors(con, episodes, lang),
                      checklist=_checklist(words, s, lines, resources, episodes, con, lang))


def _episodes(con: duckdb.DuckDBPyConnection, s: dict[str, Any]) -> list[dict[str, Any]]:
    """Episodes that used this skill (its own uses, and uses of the same name resolved to another copy)."""
    return rows(con, """
        SELECT e.episode_id, e.outcome, e.title, e.started_at, bool_or(u.skill_id = ?) AS this_copy,
               (SELECT string_agg(d.text, ' ') FROM ak_document d
                 WHERE d.episode_id = e.episode_id AND d.kind = 'episode') AS goal_text
        FROM ak_skill_use u JOIN ak_episode e USING (episode_id)
        WHERE u.skill_id = ? OR u.skill_name = ?
        GROUP BY ALL ORDER BY e.started_at DESC NULLS LAST, e.episode_id""", [s["skill_id"], s["skill_id"], s["name"]])


def _applicability(words: list[str], s: dict[str, Any], lines: list[tuple[int, str]], resources: list[Resource],
                   episodes: list[dict[str, Any]], usage: SkillUsage, lang: Lang = "en") -> list[Point]:
    out: list[Point] = []
    if s["when_to_use"]:
        hit = matched(words, s["when_to_use"])
        out.append(Point(text=say("fit.when_hit" if hit else "fit.when_miss", lang, terms=", ".join(hit),
                                  quote=_quote(s["when_to_use"])),
                         evidence=[Evidence(kind="front_matter", id="when_to_use")]))
    else:
        out.append(Point(text=say("fit.when_absent", lang),
                         evidence=[Evidence(kind="front_matter", id="when_to_use", note="absent")]))
    if s["description"]:
        hit = matched(words, f"{s['name'].replace('-', ' ')} {s['description']}")
        out.append(Point(text=say("fit.desc_hit" if hit else "fit.desc_miss", lang, terms=", ".join(hit),
                                  quote=_quote(s["description"])),
                         evidence=[Evidence(kind="front_matter", id="description")]))
    scored = sorted(((len(matched(words, ln)), n, ln) for n, ln in lines), key=lambda t: (-t[0], t[1]))
    best = [t for t in scored if t[0] > 0][:2]
    if best:
        out.append(Point(text=say("fit.body", lang, quotes=" / ".join(_quote(ln, 140) for _k, _n, ln in best)),
                         evidence=[_line_ev(n) for _k, n, _ln in best]))
    similar = [e for e in episodes if matched(words, f"{e['title'] or ''} {e['goal_text'] or ''}")]
    if similar:
        ok = sum(e["outcome"] == "success" for e in similar)
        out.append(Point(text=say("fit.similar", lang, n=len(similar), ok=ok),
                         evidence=[Evidence(kind="episode", id=e["episode_id"], note=e["outcome"])
                                   for e in similar[:5]]))
    elif episodes:
        ok = sum(e["outcome"] == "success" for e in episodes)
        out.append(Point(text=say("fit.other_tasks", lang, n=len(episodes), ok=ok),
                         evidence=[Evidence(kind="episode", id=e["episode_id"], note=e["outcome"])
                                   for e in episodes[:5]]))
    else:
        out.append(Point(text=say("fit.no_use", lang),
                         evidence=[Evidence(kind="index", id="ak_skill_use", note=f"0 uses of {s['name']}")]))
    tools = [r for r in resources if r.role in ("script", "template", "reference") and r.kind == "text"]
    fitting = [r for r in tools if matched(words, r.path.replace("/", " ").replace("_", " "))] or tools
    if fitting:
        files = ", ".join(say("fit.file", lang, path=r.path, role=word("role", r.role, lang)) for r in fitting[:4])
        out.append(Point(text=say("fit.ships", lang, files=files),
                         evidence=[Evidence(kind="resource", id=r.path, note=r.sha256) for r in fitting[:4]]))
    return out[:MAX_POINTS]


def _limits(s: dict[str, Any], lines: list[tuple[int, str]], resources: list[Resource], related: list[Related],
            usage: SkillUsage, lang: Lang = "en") -> list[Point]:
    out: list[Point] = []
    if s["status"] == "removed":
        out.append(Point(text=say("limit.removed", lang),
                         evidence=[Evidence(kind="ledger", id=".tombstones.json", note=s["removed_at"])]))
    if s["disable_model_invocation"]:
        out.append(Point(text=say("limit.no_model", lang, name=s["name"]),
                         evidence=[Evidence(kind="front_matter", id="disable-model-invocation")]))
    if s["user_invocable"] is False:
        out.append(Point(text=say("limit.not_user", lang),
                         evidence=[Evidence(kind="front_matter", id="user-invocable")]))
    if s["allowed_tools"]:
        out.append(Point(text=say("limit.tools", lang, tools=", ".join(s["allowed_tools"])),
                         evidence=[Evidence(kind="front_matter", id="allowed-tools")]))
    if s["ledger_matches"] is False:
        out.append(Point(text=say("limit.ledger", lang),
                         evidence=[Evidence(kind="ledger", id="skills-preinstall.json", note=s["ledger_sha256"])]))
    for path in s["referenced_missing"] or []:
        out.append(Point(text=say("limit.missing", lang, path=path),
                         evidence=[Evidence(kind="resource", id=path, note="missing")]))
    for r in [r for r in resources if r.kind == "binary"][:3]:
        out.append(Point(text=say("limit.binary", lang, path=r.path, size=r.size),
                         evidence=[Evidence(kind="resource", id=r.path, note=r.sha256)]))
    for c in [c for c in related if c.relation == "conflict"][:2]:
        out.append(Point(text=say("limit.conflict", lang, source=c.source, name=c.name),
                         evidence=[Evidence(kind="skill", id=c.skill_id, note=c.content_hash)]))
    for n, ln in _limit_lines(lines)[:4]:
        out.append(Point(text=say("limit.body", lang, quote=_quote(ln)), evidence=[_line_ev(n)]))
    if not out:
        out.append(Point(text=say("limit.none", lang),
                         evidence=[Evidence(kind="front_matter", id="*")]))
    return out


def _limit_lines(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Lines under a Pitfalls/Limitations-like heading, and lines that say never/only/avoid…"""
    out, under = [], False
    for n, ln in lines:
        h = _HEADING.match(ln)
        if h:
            under = bool(_PITFALLS.search(h.group(1)))
            continue
        if under or _LIMIT.search(ln):
            out.append((n, ln))
    return out


def _errors(con: duckdb.DuckDBPyConnection, episodes: list[dict[str, Any]], lang: Lang = "en") -> list[Point]:
    if not episodes:
        return [Point(text=say("err.no_use", lang),
                      evidence=[Evidence(kind="index", id="ak_skill_use", note="0 uses")])]
    ids = [e["episode_id"] for e in episodes]
    failed = rows(con, """
        SELECT ev.episode_id, ev.seq, ev.tool_name, ev.event_id, d.doc_key, d.text
        FROM ak_event ev
        LEFT JOIN ak_document d ON d.session_id = ev.session_id AND d.seq = ev.seq AND d.lane = 'episodes'
        WHERE ev.episode_id IN (SELECT unnest(?)) AND ev.role = 'tool_result' AND ev.is_error
        ORDER BY ev.tool_name NULLS LAST, ev.time, ev.event_id""", [ids])
    out: list[Point] = []
    by_tool: dict[str, list[dict[str, Any]]] = {}
    for f in failed:
        by_tool.setdefault(f["tool_name"] or "tool", []).append(f)
    for tool, fs in sorted(by_tool.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:3]:
        first = fs[0]
        text = say("err.tool", lang, tool=tool, n=len(fs))
        if first["text"]:
            text += ": " + _quote(first["text"], 160)
        out.append(Point(text=text, evidence=[Evidence(kind="document" if f["doc_key"] else "event",
                                                       id=f["doc_key"] or f["event_id"], note=f["episode_id"])
                                              for f in fs[:5]]))
    retries = retry_pairs(con, ids)
    if retries:
        tools = sorted({r["tool"] for r in retries})
        out.append(Point(text=say("err.retry" if len(retries) == 1 else "err.retries", lang, n=len(retries),
                                  tools=", ".join(tools)),
                         evidence=[Evidence(kind="event", id=r["retry_event"], note=f"after {r['failed_event']}")
                                   for r in retries[:5]]))
    bad = [e for e in episodes if e["outcome"] in ("failure", "cancelled", "partial")]
    if bad:
        outcomes = ", ".join(outcome(o, lang) for o in sorted({e["outcome"] for e in bad}))
        out.append(Point(text=say("err.not_success", lang, bad=len(bad), total=len(episodes), outcomes=outcomes),
                         evidence=[Evidence(kind="episode", id=e["episode_id"], note=e["outcome"]) for e in bad[:5]]))
    if not out:
        out.append(Point(text=say("err.clean", lang, n=len(episodes)),
                         evidence=[Evidence(kind="episode", id=e["episode_id"], note=e["outcome"])
                                   for e in episodes[:5]]))
    return out


def retry_pairs(con: duckdb.DuckDBPyConnection, episode_ids: list[str]) -> list[dict[str, Any]]:
    """A failed tool result followed, in the same episode, by a new call of the same tool."""
    return rows(con, """
        WITH ev AS (
            SELECT episode_id, seq, event_id, role, tool_name, is_error, time FROM ak_event
            WHERE episode_id IN (SELECT unnest(?)) AND role IN ('tool_call', 'tool_result') AND NOT is_duplicate)
        SELECT f.episode_id, f.tool_name AS tool, f.seq AS failed_seq, f.event_id AS failed_event,
               min(c.seq) AS retry_seq, arg_min(c.event_id, c.seq) AS retry_event
        FROM ev f JOIN ev c ON c.episode_id = f.episode_id AND c.role = 'tool_call' AND c.tool_name = f.tool_name
                            AND c.seq > f.seq
        WHERE f.role = 'tool_result' AND f.is_error
        GROUP BY ALL ORDER BY f.episode_id, failed_seq""", [episode_ids])


def _checklist(words: list[str], s: dict[str, Any], lines: list[tuple[int, str]], resources: list[Resource],
               episodes: list[dict[str, Any]], con: duckdb.DuckDBPyConnection, lang: Lang = "en") -> list[Point]:
    out: list[Point] = []
    if s["disable_model_invocation"]:
        out.append(Point(text=say("check.invoke", lang, name=s["name"]),
                         evidence=[Evidence(kind="front_matter", id="disable-model-invocation")]))
    if s["path"] and s["content_hash"]:
        out.append(Point(text=say("check.version", lang, path=s["path"],
                                  sha=s["content_hash"].removeprefix("sha256:")),
                         evidence=[Evidence(kind="skill", id=s["skill_id"], note="content_hash")]))
    steps = [(n, m.group(1)) for n, ln in lines if (m := _STEP.match(ln))]
    if not steps:
        steps = [(n, m.group(1)) for n, ln in lines if (m := _HEADING.match(ln))][1:]  # the first is the title
    if steps:
        on_task = [t for t in steps if matched(words, t[1])]
        chosen = sorted((on_task + [t for t in steps if t not in on_task])[:6])
        out += [Point(text=say("check.step", lang, quote=_quote(text, 160)), evidence=[_line_ev(n)])
                for n, text in chosen]
    else:
        out.append(Point(text=say("check.no_steps", lang),
                         evidence=[Evidence(kind="body_line", id="SKILL.md body", note="no steps")]))
    for path in (s["referenced_missing"] or [])[:2]:
        out.append(Point(text=say("check.missing", lang, path=path),
                         evidence=[Evidence(kind="resource", id=path, note="missing")]))
    for f in _errors(con, episodes, lang)[:2] if episodes else []:
        if f.evidence and f.evidence[0].kind in ("document", "event"):
            out.append(Point(text=say("check.guard", lang, text=f.text), evidence=f.evidence[:3]))
    return out
