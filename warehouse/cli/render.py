"""The human renderers: what a command prints without `--json`, one `print_*` per document kind.

Apart from the commands so the wire document (built by the API) and its text form stay separate; they print
values as text (never as markup or a Python repr) and never add indexed text a document does not carry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from warehouse.cli.app import err, out


def text(v: Any) -> str:
    """A value as readable text: mappings as k=v, lists comma-joined (never a Python repr)."""
    if isinstance(v, dict):
        return ", ".join(f"{k}={text(x)}" for k, x in v.items()) or "-"
    if isinstance(v, list | tuple | set):
        return ", ".join(text(x) for x in v) or "-"
    return "-" if v is None else str(v)


def _cell(v: Any) -> Text:
    """A SQL value for a table cell: nested values as JSON, never interpreted as markup."""
    if isinstance(v, dict | list | tuple):
        return Text(json.dumps(v, ensure_ascii=False, default=str))
    return Text("NULL" if v is None else str(v))


def _print_env(env: dict[str, str]) -> None:
    out.print("Use it: " + " ".join(f"{k}={v}" for k, v in env.items()), markup=False, highlight=False)


def _flat(d: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for k, v in d.items():
        if isinstance(v, dict) and v:
            yield from _flat(v, f"{prefix}{k}.")
        else:
            yield f"{prefix}{k}", v


# -- reindex ----------------------------------------------------------------------------------
def print_extract(doc: dict[str, Any]) -> None:
    t = Table(title=f"extract ({doc['duration_s']} s, {doc['files_written']} files written)")
    for c in ("source", "root", "seen", "changed", "unchanged", "failed", "removed", "rows written", "errors"):
        t.add_column(c, justify="right" if c not in ("source", "root", "errors") else "left")
    for s in doc["sources"]:
        u = s["units"]
        errs = ", ".join(sorted({e["code"] for e in s["errors"]})) or "-"
        t.add_row(Text(s["source"]), Text(s.get("root", "ok")),
                  *(str(u[k]) for k in ("seen", "changed", "unchanged", "failed", "removed")),
                  Text(text(s["rows_written"])), errs)
    out.print(t)


def print_reindex(doc: dict[str, Any]) -> None:
    if "extract" in doc:
        print_extract(doc["extract"])
    if doc.get("mode") == "verify":
        out.print("[green]verify: ok[/green]" if doc["ok"] else "[red]verify: mismatches[/red]")
        for m in doc["mismatches"]:
            rest = {k: v for k, v in m.items() if k != "check"}
            out.print(f"  {m.get('check')}: {text(rest)}", markup=False, highlight=False)
        return
    build = doc.get("build") or {}
    counts = f"; {text(build['counts'])}" if build.get("counts") else ""
    out.print(f"{doc['outcome']}: index_rev {doc['index_rev']} ({doc['generation']}) in {doc['duration_s']} s{counts}",
              markup=False, highlight=False)


# -- team -----------------------------------------------------------------------------------------
def print_team(d: dict[str, Any]) -> None:
    colour = {"ready": "green", "behind": "yellow", "degraded": "yellow"}.get(d.get("state", ""), "red")
    out.print(f"[{colour}]{d.get('state', 'initialised')}[/{colour}]  writer={d.get('writer_id')}  "
              f"snapshot={d.get('snapshot_id')}  built={d.get('built_snapshot_id')}  "
              f"unpushed={d.get('unpushed_units', '-')}", highlight=False)
    for w in d.get("writers", []):
        out.print(f"  {w['writer_id']:<24} last commit {w['last_commit_at']} (snapshot {w['last_snapshot_id']}, "
                  f"{w['units']} units, {w['lag_s']} s ago)", markup=False, highlight=False)
    for e in d.get("errors", []):
        out.print(f"[red]{e['code']}[/red] " + escape(str(e["message"])))


# -- status / sources ---------------------------------------------------------------------------
def print_status(d: dict[str, Any]) -> None:
    colour = {"ready": "green", "stale": "yellow", "degraded": "yellow"}.get(d["state"], "red")
    out.print(f"[{colour}]{d['state']}[/{colour}]  index_rev={d['index_rev']}  next_run={d['next_run']}")
    if d.get("disabled"):
        out.print(f"{d['disabled']['reason']}; index kept: {d['disabled']['index_kept']}", markup=False,
                  highlight=False)
    if d["last_run"]:
        lr = d["last_run"]
        out.print(f"last run: {lr['mode']} {lr['outcome']} at {lr['finished_at']} ({lr['duration_s']} s)")
        for w in lr.get("warnings") or []:  # coded notes that lost nothing (a copied account, new line types)
            out.print(f"[yellow]{w['code']}[/yellow] {escape(str(w.get('source', '')))} "
                      f"{escape(str(w.get('unit', '')))}: {escape(str(w.get('message', '')))}")
    if d.get("reason"):
        out.print("reason: " + escape(d["reason"]) + (f"\nfix: {escape(d['fix'])}" if d.get("fix") else ""))
    for n in d.get("notes", []):
        out.print(f"[yellow]{n['code']}[/yellow] " + escape(n["message"]))
    for name, r in d.get("roots", {}).items():
        if r["state"] != "ok":
            out.print(f"  source {name}: {r['state']} ({r['root']})", markup=False, highlight=False)
    for name, c in sorted(d["counts"].items()):
        out.print(f"  {name:<18} {text(c)}", markup=False)
    for e in d["errors"]:
        out.print(f"[red]{e['code']}[/red] " + escape(f"{e['source']} {e['unit']}: {e['message']}"))


def print_sources(d: dict[str, Any]) -> None:
    t = Table(title="sources")
    for c in ("source", "units", "ok", "error", "excluded"):
        t.add_column(c)
    for name, s in sorted(d["sources"].items()):
        t.add_row(Text(name), *(str(s.get(k, 0)) for k in ("units", "ok", "error", "excluded")))
    out.print(t)
    for u in d["units"]:
        if u["status"] == "error":
            out.print(f"[red]{u['error_code']}[/red] " + escape(f"{u['source']} {u['unit']}: {u['error']}"))


# -- search / get / sql / feedback --------------------------------------------------------------
def _where(lane: str, it: dict[str, Any]) -> str:
    if lane == "episodes":
        who = f" — {it['actor']['name']}" if (it.get("actor") or {}).get("name") else ""
        return f"{it['session_id']}#{it['seq']} {it.get('event_type')} {(it.get('time') or '')[:10]}{who}"
    return f"{it['path']}:{it['start_line']}" if lane == "code" else str(it["name"])


def print_search(d: dict[str, Any]) -> None:
    r = d["routing"]
    out.print(f"[bold]{escape(d['query'])}[/bold]  "
              + escape(f"intent={r['intent']} (intent confidence {r['confidence']}) — {r['reason']}"))
    m = d.get("match")
    if m:
        style = {"strong": "green", "weak": "yellow", "none": "red"}[m["level"]]
        facts = [f"{k} {m[k]}" for k in ("similarity", "coverage") if m.get(k) is not None]
        facts += [f"unknown: {', '.join(m['unknown_terms'])}"] if m.get("unknown_terms") else []
        out.print(f"[{style}]match: {m['level']}[/{style}]" + escape(f" ({'; '.join(facts)})" if facts else ""))
    for a in d.get("actors", []):
        out.print("[cyan]actor[/cyan] " + escape(f"{a.get('name')} [{a['kind']}/{a['source']}] fit="
                                                 f"{a.get('confidence')} dispatch={a.get('dispatch', {}).get('mode')}"))
        if a.get("context") or a.get("description"):
            out.print("   " + (a.get("context") or a.get("description")), markup=False)
        out.print("   why: " + "; ".join(a.get("why", [])), markup=False)
        out.print("   evidence: " + ", ".join(e["id"] for e in a["evidence"]), markup=False)
    for lane in ("episodes", "code", "skills"):
        ln = d["lanes"].get(lane)
        if not ln:
            continue
        flag = f" [yellow]degraded: {escape(str(ln.get('degradation_reason')))}[/yellow]" if ln.get("degraded") else ""
        out.print(f"[bold]{lane}[/bold] ({len(ln['items'])}){flag}")
        for it in ln["items"]:
            out.print(f"  • {_where(lane, it)}", markup=False)
            if it.get("snippet"):
                out.print(Text(f"    {it['snippet']}", style="dim"), highlight=False)
    for w in d.get("warnings", []):
        out.print(f"[yellow]{w['code']}[/yellow] " + escape(f"{w['lane']}: {w['message']}"))
    for e in d.get("errors", []):
        out.print(f"[red]{e['code']}[/red] " + escape(str(e["message"])))


_UNTRUSTED = re.compile(r'<untrusted-data note="[^"]*">|</untrusted-data>')


def _plain(v: Any) -> str:
    """Card text for a person: the untrusted-data markers dropped (they are for models), one line."""
    return " ".join(_UNTRUSTED.sub("", text(v)).split())


def _print_points(title: str, points: list[dict[str, Any]]) -> None:
    if points:
        out.print(f"[bold]{title}[/bold]")
    for p in points:
        ev = ", ".join(e["id"] for e in p.get("evidence", []))
        out.print(Text(f"  • {_plain(p['text'])}" + (f"  [{ev}]" if ev else "")), highlight=False)


def print_card(d: dict[str, Any]) -> None:
    """Readable text of any card: a headline, then its sections line by line (no raw dicts)."""
    kind = d["schema"].split(".")[2].split("/")[0]
    name = d.get("display_name") or d.get("name") or d.get("title") or d.get("path") or ""
    ident = d.get("actor_id") or d.get("skill_id") or d.get("episode_id") or d.get("id")
    out.print(Text(f"{kind}: {_plain(name)}", style="bold"), highlight=False)
    out.print(Text(f"  id {ident}   index {d['index_rev']}"), highlight=False)
    skip = {"schema", "index_rev", "display_name", "name", "title", "actor_id", "skill_id", "episode_id", "id",
            "task_answer", "task_fit", "truncated", "notices", "body", "transcript"}
    for key, v in d.items():
        if key in skip or v in (None, [], {}):
            continue
        if isinstance(v, list) and v and isinstance(v[0], dict):
            out.print(f"[bold]{key}[/bold] ({len(v)})")
            for row in v[:20]:
                out.print(Text(f"  • {_plain(row)}"), highlight=False)
        elif isinstance(v, dict):
            out.print(f"[bold]{key}[/bold]")
            for k, x in v.items():
                if x not in (None, [], {}):
                    out.print(Text(f"  {k}: {_plain(x)}"), highlight=False)
        else:
            out.print(Text(f"{key}: {_plain(v)}"), highlight=False)
    if d.get("body"):
        out.print("[bold]body[/bold]")
        out.print(Text(_UNTRUSTED.sub("", d["body"]), style="dim"), highlight=False)
    for ev in d.get("transcript", []):
        out.print(Text(f"  #{ev.get('seq')} {ev['role']}{' ' + ev['tool'] if ev.get('tool') else ''}"
                       f"{' ERROR' if ev.get('is_error') else ''}: {_plain(ev.get('text'))[:300]}", style="dim"),
                  highlight=False)
    _print_points("task fit", d.get("task_fit", []))
    ta = d.get("task_answer")
    if ta:
        out.print(Text(f"task: {ta['task']}  (matched: {', '.join(ta['matched_terms']) or '-'})", style="bold"))
        for section in ("applicability", "limits", "typical_errors", "checklist"):
            _print_points(section.replace("_", " "), ta[section])
    for n in d.get("notices", []):
        out.print(f"[yellow]{escape(n['code'])}[/yellow] " + escape(n["message"]))
    for c in d.get("truncated", []):
        out.print(Text(f"cut: {c['field']} {c['shown_chars']}/{c['total_chars']} — {c['rest']}", style="yellow"))


def print_sql(d: dict[str, Any]) -> None:
    t = Table()
    for c in d["columns"]:
        t.add_column(Text(c))
    for r in d["rows"]:
        t.add_row(*(_cell(v) for v in r))
    out.print(t)
    if d.get("truncated"):
        err.print(f"(first {len(d['rows'])} rows; raise --limit for more)", markup=False)


def print_feedback(d: dict[str, Any]) -> None:
    verdict = "useful" if d["useful"] else "not useful"
    out.print(f"recorded {verdict} for {d['result_id']} ({d['votes']['useful']} useful, "
              f"{d['votes']['not_useful']} not useful; ranking x{d['boost']})", markup=False, highlight=False)


# -- schedule -----------------------------------------------------------------------------------
def print_schedule(d: dict[str, Any]) -> None:
    state = "enabled" if d["enabled"] else "disabled (nothing runs)"
    out.print(f"schedule {d['mode']} {', '.join(d['times'])} {d['zone']}; {state}", markup=False, highlight=False)
    out.print("next runs: " + (", ".join(d["next_runs"]) or "-"), markup=False, highlight=False)
    last = d["last_run"] or {}
    out.print(f"last run: {last.get('started_at') or '-'} {last.get('outcome') or ''}".rstrip(), markup=False,
              highlight=False)
    due = d["due"]
    out.print(f"due now: {'yes' if due['due'] else 'no'} ({due['reason'] or 'nothing missed'}"
              f"{', slot ' + due['slot'] if due['slot'] else ''}); stale={d['stale']}", markup=False, highlight=False)


# -- dispatch ---------------------------------------------------------------------------------
def print_dispatch(d: dict[str, Any]) -> None:
    t = d.get("target")
    if t:
        av = "available" if t["dispatch"]["available"] else "not available: " + "; ".join(t["dispatch"]["reasons"])
        out.print(f"[bold]{d['mode']}[/bold] → " + escape(f"{t['name']} ({t['actor_id']}) via {t['choice']}; "
                                                        f"{t['dispatch']['mode']} {av}"))
        out.print("   why: " + "; ".join(t["why"]), markup=False)
    pack = d["context_pack"]
    for label, key in (("prior episodes", "prior_episodes"), ("code refs", "code_refs"), ("skills", "skills"),
                       ("risks", "risks")):
        out.print(f"   {label}: {len(pack[key])}", markup=False)
    if d.get("handoff"):
        calls = ", ".join(c["tool"] for c in d["handoff"]["tool_calls"]) or "none (a package only)"
        out.print(f"   handoff {d['handoff']['assignment_id']}: tool calls {calls}; execution "
                  f"{d['handoff']['execution']}", markup=False)
    if d.get("assignment"):
        a = d["assignment"]
        out.print(("[green]recorded[/green] " if a["created"] else "[yellow]already recorded[/yellow] ")
                  + escape(f"{a['assignment_id']} → {a['package_file']}"))
    if d.get("suggestion"):
        out.print("   suggestion: create a new actor " + escape(d["suggestion"]["name"]))
    for w in d.get("warnings", []):
        out.print(f"[yellow]{w['code']}[/yellow] " + escape(w["message"]))
    for e in d.get("errors", []):
        out.print(f"[red]{e['code']}[/red] " + escape(e["message"]))


def print_outbox(d: dict[str, Any]) -> None:
    t = Table("assignment", "dispatch_id", "actor", "mode", "created_at", title=f"outbox {d['outbox']}")
    for a in d["assignments"]:
        t.add_row(*(Text(str(a.get(k))) for k in ("assignment_id", "dispatch_id", "actor_id", "dispatch_mode",
                                                  "created_at")))
    out.print(t)


# -- lifecycle: forget, delete, on/off ----------------------------------------------------------
def print_lines(d: dict[str, Any]) -> None:
    """`key=value` lines (counts, states): never indexed text, which these documents do not carry."""
    for k, v in _flat(d):
        out.print(f"{k}={text(v)}", markup=False, highlight=False)


def print_onoff(d: dict[str, Any]) -> None:
    st = d["status"]
    out.print(f"enabled={d['enabled']}  state={st['state']}  index_rev={st['index_rev']}", markup=False,
              highlight=False)
    if st.get("disabled"):
        out.print(f"{st['disabled']['reason']}; index kept: {st['disabled']['index_kept']}", markup=False,
                  highlight=False)


# -- config -----------------------------------------------------------------------------------
def print_settings(d: dict[str, Any]) -> None:
    """One `key=value` line per setting, in the syntax `akw config set` accepts."""
    out.print(f"# {d['config_file']}", markup=False, highlight=False)
    for k, v in _flat(d["agent-knowledge"]):
        out.print(f"{k}={json.dumps(v, ensure_ascii=False, default=str)}", markup=False, highlight=False)


# -- fixtures / demo / quality ------------------------------------------------------------------
def print_fixtures(d: dict[str, Any]) -> None:
    t = Table("what", "count", title=f"generated into {d['out']}")
    for k, v in sorted(d["counts"].items()):
        t.add_row(Text(k), Text(text(v)))
    out.print(t)
    _print_env(d["env"])


def print_demo(d: dict[str, Any]) -> None:
    print_reindex(d["reindex"])
    for name, resp in d["scenarios"].items():
        out.rule(escape(name))
        print_search(resp)
    if d.get("dispatch"):
        out.rule(escape(d["dispatch"]["title"]))
        print_dispatch(d["dispatch"]["dry_run"])
        print_dispatch(d["dispatch"]["commit"])
        pkg = d["dispatch"]["outbox"]
        out.print(f"outbox package: {pkg['package_file']} ({pkg['handoff']['schema']}, "
                  f"execution {pkg['handoff']['execution']})", markup=False, highlight=False)
    out.rule("UJ-5 status")
    st = d["status"]
    out.print(f"state={st['state']} index_rev={st['index_rev']} next_run={st['next_run']} db_bytes={st['db_bytes']}",
              markup=False)
    _print_env(d["env"])


def print_quality(d: dict[str, Any]) -> None:
    st = d["statistics"]
    verdict = "passed" if d["success"] else "FAILED"
    out.print(f"data quality {verdict}: {st['successful']}/{st['evaluated']} expectations hold "
              f"(index_rev {d.get('index_rev') or '-'})", markup=False, highlight=False)
    for r in d["results"]:
        if not r["success"]:
            out.print(f"  ✗ {r['check']}: {r['unexpected_count']} of {r['element_count']} rows "
                      f"(e.g. {text(r['examples'])})", markup=False, highlight=False)
    if d.get("report"):
        out.print(f"validation result: {d['report']}", markup=False, highlight=False)
