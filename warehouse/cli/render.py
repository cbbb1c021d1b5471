"""The human renderers: what a command prints without `--json`, one `print_*` per document kind.

Apart from the commands so the wire document (built by the API) and its text form stay separate; they print
values as text (never as markup or a Python repr) and never add indexed text a document does not carry.
Each takes the output's language (`lang`, decided once by the command: core/language) and its words from
cli/labels.py, so one output speaks one language; the English defaults are what they always printed.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Iterator
from typing import Any

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from warehouse.cli.app import err, out
from warehouse.cli.labels import field, value
from warehouse.cli.labels import t as label
from warehouse.core.language import Lang


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


def _say(line: str, style: str | None = None) -> None:
    """Print `line` with its leading spaces as an indent that wrapped lines keep too (a hanging indent at the
    terminal's width, 80 when piped), so a long snippet or id list never runs back to column 0; a word longer
    than the line (an id) is folded, never cut."""
    body = line.lstrip(" ")
    pad = " " * (len(line) - len(body))
    width = max(out.width, len(pad) + 20)
    hang = pad + ("  " if body.startswith("• ") else "")  # a bullet's wrapped lines align with its text
    wrapped = textwrap.fill(body, width=width, initial_indent=pad, subsequent_indent=hang,
                            break_on_hyphens=False) if body else ""
    out.print(Text(wrapped, style=style or ""), highlight=False, soft_wrap=True)


def _print_env(env: dict[str, str], then: str | None = None, lang: Lang = "en") -> None:
    """The shell lines that point `akw` at this data (and what to run next), ready to paste."""
    out.print(label("demo.use", lang), markup=False, highlight=False)
    out.print(" ".join(["export", *(f"{k}={v}" for k, v in env.items())]), markup=False, highlight=False,
              soft_wrap=True)
    if then:
        out.print(then, markup=False, highlight=False, soft_wrap=True)


def _flat(d: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for k, v in d.items():
        if isinstance(v, dict) and v:
            yield from _flat(v, f"{prefix}{k}.")
        else:
            yield f"{prefix}{k}", v


# -- reindex ----------------------------------------------------------------------------------
def print_extract(doc: dict[str, Any], lang: Lang = "en") -> None:
    """One row per source; rows written as one total (the per-table counts are in --json), so the table fits
    80 columns; names fold onto a second line rather than being cut."""
    t = Table(title=label("extract.title", lang, s=doc["duration_s"], n=doc["files_written"]))
    for c in ("source", "root", "seen", "changed", "same", "failed", "gone", "rows", "errors"):
        t.add_column(label(f"col.{c}", lang), justify="left" if c in ("source", "root", "errors") else "right",
                     overflow="fold", no_wrap=c == "source", min_width=11 if c == "source" else None)
    for s in doc["sources"]:
        u = s["units"]
        errs = ", ".join(sorted({e["code"] for e in s["errors"]})) or "-"
        rows = sum(v for v in (s.get("rows_written") or {}).values() if isinstance(v, int))
        t.add_row(Text(s["source"]), Text(value(s.get("root", "ok"), lang)),
                  *(str(u[k]) for k in ("seen", "changed", "unchanged", "failed", "removed")), str(rows), Text(errs))
    out.print(t)


def run_mode(run: dict[str, Any], lang: Lang = "en") -> str:
    """What a run did, in words: a first build is not "incremental" even when that mode was asked for."""
    return label("reindex.first_build", lang) if run.get("first_build") else value(run.get("mode"), lang)


def print_reindex(doc: dict[str, Any], lang: Lang = "en") -> None:
    if "extract" in doc:
        print_extract(doc["extract"], lang)
    if doc.get("mode") == "verify":
        out.print(f"[green]{label('reindex.verify_ok', lang)}[/green]" if doc["ok"]
                  else f"[red]{label('reindex.verify_bad', lang)}[/red]")
        for m in doc["mismatches"]:
            rest = {k: v for k, v in m.items() if k != "check"}
            out.print(f"  {m.get('check')}: {text(rest)}", markup=False, highlight=False)
        return
    main = _main_counts((doc.get("build") or {}).get("counts") or {}, lang)
    out.print(label("reindex.done", lang, outcome=value(doc["outcome"], lang), mode=run_mode(doc, lang),
                    rev=doc["index_rev"], s=doc["duration_s"]) + (f"; {main}" if main else ""),
              markup=False, highlight=False)


# the counts a person reads first (every table's count: --json, or `akw status --json`)
_MAIN_COUNTS = (("ak_episode", "episodes"), ("ak_actor", "actors"), ("ak_skill", "skills"),
                ("ak_event", "events"), ("ak_memory", "memories"), ("ak_document", "documents"))


def _main_counts(counts: dict[str, Any], lang: Lang = "en") -> str:
    return ", ".join(label(f"count.{name}", lang, n=counts[k]) for k, name in _MAIN_COUNTS
                     if isinstance(counts.get(k), int))


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
def _mb(n: int | None, lang: Lang = "en") -> str:
    return "-" if n is None else label("unit.mb", lang, v=n / 1e6)


def print_status(d: dict[str, Any], lang: Lang = "en") -> None:
    """State first, then the last and next run, the sources, coverage, the main counts and every error."""
    colour = {"ready": "green", "stale": "yellow", "degraded": "yellow"}.get(d["state"], "red")
    out.print(f"[{colour}]{escape(value(d['state'], lang))}[/{colour}]  "
              + escape(label("status.index", lang, rev=d["index_rev"] or "-", size=_mb(d.get("db_bytes"), lang))))
    if d.get("disabled"):
        out.print(label("status.kept", lang, reason=d["disabled"]["reason"],
                        kept=value(d["disabled"]["index_kept"], lang)), markup=False, highlight=False)
    if d.get("reason"):
        out.print(escape(label("status.reason", lang, v=d["reason"]))
                  + ("\n" + escape(label("status.fix", lang, v=d["fix"])) if d.get("fix") else ""))
    if d["last_run"]:
        lr = d["last_run"]
        out.print(label("status.last_run", lang, mode=run_mode(lr, lang), outcome=value(lr["outcome"], lang),
                        at=lr["finished_at"], s=lr["duration_s"]), markup=False, highlight=False)
    out.print(label("status.next_run", lang, v=d.get("next_run") or "-"), markup=False, highlight=False)
    roots = d.get("roots", {})
    if roots:
        out.print(label("status.sources", lang, v="; ".join(
            f"{n} {value(r['state'], lang)}" + (f" ({r['root']})" if r["state"] != "ok" else "")
            for n, r in roots.items())), markup=False, highlight=False)
    cov = d.get("coverage") or []
    if cov:
        out.print(label("status.coverage", lang), markup=False, highlight=False)
        for c in cov:
            dup = label("status.duplicates", lang, n=c["duplicates"]) if c.get("duplicates") else ""
            mark = value("ok", lang) if c.get("ok") else f"[red]{label('status.mismatch', lang)}[/red]"
            out.print(escape(f"  {c['source']:<12} {c['entity']:<10} {c['source_units']} → {c['indexed']}{dup}  ")
                      + mark, highlight=False)
    main = _main_counts(d.get("counts") or {}, lang)
    if main:
        out.print(label("status.counts", lang, v=main), markup=False, highlight=False)
    for n in d.get("notes", []):
        out.print(f"[yellow]{n['code']}[/yellow] " + escape(n["message"]))
    if d["last_run"]:
        for w in d["last_run"].get("warnings") or []:  # coded notes that lost nothing (copied account, new types)
            out.print(f"[yellow]{w['code']}[/yellow] {escape(str(w.get('source', '')))} "
                      f"{escape(str(w.get('unit', '')))}: {escape(str(w.get('message', '')))}")
    for surface, u in sorted(((d.get("usage") or {}).get("by_surface") or {}).items()):
        lat = u["latency_ms"]
        errs = ", ".join(f"{c} {n}" for c, n in u["errors"].items()) or label("none", lang)
        _say(label("status.usage", lang, surface=surface, days=d["usage"]["days"], searches=u["searches"],
                   zero=f"{u['zero_result_rate']:.0%}", weak=f"{u['weak_rate']:.0%}",
                   degraded=f"{u['degraded_share']:.0%}", both=f"{u['both_evidence_share']:.0%}", p50=lat["p50"],
                   p95=lat["p95"], errors=errs))
    out.print(label("status.errors", lang, v=len(d["errors"]) if d["errors"] else label("none", lang)),
              markup=False, highlight=False)
    for e in d["errors"]:
        out.print(f"  [red]{e['code']}[/red] " + escape(f"{e['source']} {e['unit']}: {e['message']}"))


def print_sources(d: dict[str, Any], lang: Lang = "en") -> None:
    t = Table(title=label("sources", lang))
    for c in ("source", "units", "ok", "error", "excluded"):
        t.add_column(label(f"col.{c}", lang))
    for name, s in sorted(d["sources"].items()):
        t.add_row(Text(name), *(str(s.get(k, 0)) for k in ("units", "ok", "error", "excluded")))
    out.print(t)
    for u in d["units"]:
        if u["status"] == "error":
            out.print(f"[red]{u['error_code']}[/red] " + escape(f"{u['source']} {u['unit']}: {u['error']}"))
    for q in d.get("quarantined", []):  # units the published build left out (indexing/quarantine.py)
        out.print(f"[red]{q['code']}[/red] " + escape(f"{q['source']} {q['unit']}: {q['message']}"))


# -- search / get / sql / feedback --------------------------------------------------------------
def _where(lane: str, it: dict[str, Any]) -> str:
    if lane == "episodes":
        who = f" — {it['actor']['name']}" if (it.get("actor") or {}).get("name") else ""
        return f"{it['session_id']}#{it['seq']} {it.get('event_type')} {(it.get('time') or '')[:10]}{who}"
    return f"{it['path']}:{it['start_line']}" if lane == "code" else str(it["name"])


def print_search(d: dict[str, Any], lang: Lang = "en") -> None:
    """The query, how it was read (intent), how strong the answer is, who did it (numbered, with why and
    evidence), then each lane's items with their snippets; `lang`: the language the search answered in."""
    r = d["routing"]
    out.print(f"[bold]{escape(d['query'])}[/bold]")
    _say("  " + label("search.intent", lang, intent=r["intent"], confidence=r["confidence"], reason=r["reason"]),
         "dim")
    m = d.get("match")
    if m:
        style = {"strong": "green", "weak": "yellow", "none": "red"}[m["level"]]
        facts = [label(f"search.{k}", lang, v=m[k]) for k in ("similarity", "coverage") if m.get(k) is not None]
        facts += [label("search.unknown", lang, v=", ".join(m["unknown_terms"]))] if m.get("unknown_terms") else []
        out.print(f"[{style}]{escape(label('search.match', lang, level=value(m['level'], lang)))}[/{style}]"
                  + escape(f" ({'; '.join(facts)})" if facts else ""))
    actors = d.get("actors", [])
    if actors:
        out.print(f"[bold]{label('search.who', lang)}[/bold] ({len(actors)})")
    for i, a in enumerate(actors, 1):
        mode = a.get("dispatch", {}).get("mode")
        _say(f"  {i}. {a.get('name')}", "cyan")
        _say("     " + label("search.actor", lang, kind=value(a["kind"], lang), source=a["source"],
                             fit=a.get("confidence"), mode=value(mode, lang)))
        if a.get("context") or a.get("description"):
            _say("     " + label("search.did", lang, v=_plain(a.get("context") or a.get("description"))))
        _say(f"     {label('why', lang)}: " + "; ".join(a.get("why", [])))
        _say(f"     {label('evidence', lang)}: " + ", ".join(e["id"] for e in a["evidence"]))
    for lane in ("episodes", "code", "skills"):
        ln = d["lanes"].get(lane)
        if not ln:
            continue
        flag = (f" [yellow]{escape(label('search.degraded', lang, v=ln.get('degradation_reason')))}[/yellow]"
                if ln.get("degraded") else "")
        out.print(f"[bold]{value(lane, lang)}[/bold] ({len(ln['items'])}){flag}")
        for it in ln["items"]:
            _say(f"  • {_where(lane, it)}")
            if it.get("snippet"):
                lines = [ln.strip() for ln in str(it["snippet"]).splitlines() if ln.strip()]
                for ln in lines:
                    _say(f"    {ln}", "dim")
    for w in d.get("warnings", []):
        out.print(f"[yellow]{w['code']}[/yellow] " + escape(f"{value(w['lane'], lang)}: {w['message']}"))
    for e in d.get("errors", []):
        out.print(f"[red]{e['code']}[/red] " + escape(str(e["message"])))


_UNTRUSTED = re.compile(r'<untrusted-data note="[^"]*">|</untrusted-data>')


def _plain(v: Any) -> str:
    """Card text for a person: the untrusted-data markers dropped (they are for models), one line."""
    return " ".join(_UNTRUSTED.sub("", text(v)).split())


def _point(p: dict[str, Any]) -> str:
    ev = ", ".join(e["id"] for e in p.get("evidence", []))
    return _plain(p["text"]) + (f"  [{ev}]" if ev else "")


def _print_points(title: str, points: list[dict[str, Any]]) -> None:
    """A card's points (task fit, applicability, checklist…), each with its evidence ids."""
    _bullets(title, [_point(p) for p in points], indent=0)


def print_task_answer(d: dict[str, Any], lang: Lang = "en") -> None:
    """A card's answer to `--task`: an agent's fit, a skill's applicability, limits, typical errors, checklist."""
    _print_points(label("card.task_fit", lang), d.get("task_fit", []))
    ta = d.get("task_answer")
    if ta:
        out.print(Text(label("card.task", lang, task=ta["task"], terms=", ".join(ta["matched_terms"]) or "-"),
                       style="bold"))
        for section in ("applicability", "limits", "typical_errors", "checklist"):
            _print_points(label(f"card.{section}", lang), ta[section])


_ROW_HEADS = ("name", "display_name", "title", "text", "note", "path", "summary")
_ROW_IDS = ("id", "episode_id", "actor_id", "skill_id", "session_id")


def _row(row: dict[str, Any]) -> str:
    """One list item of a card as a line: its name or text first, its other facts, its id last in brackets
    (not `k=v, k=v` in the order the document happens to hold them)."""
    head = next((k for k in _ROW_HEADS if row.get(k) not in (None, "", [], {})), None)
    ident = next((k for k in _ROW_IDS if row.get(k) not in (None, "") and k != head), None)
    facts = [f"{k} {_when(v)}" for k, v in row.items()  # nested lists (evidence refs) stay in --json
             if k not in (head, ident) and v not in (None, "") and not isinstance(v, list | dict)]
    line = _plain(row[head]) if head else ""
    if facts:
        line = f"{line} — {'; '.join(facts)}" if line else "; ".join(facts)
    return f"{line}  [{row[ident]}]" if ident else line


_ISO_TIME = re.compile(r"^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)[\d:.]*(Z|[+-]\d\d:\d\d)?$")


def _when(v: Any) -> str:
    """A value as a short fact: an ISO timestamp to the minute (`2026-09-19 08:32Z`), anything else as text."""
    m = _ISO_TIME.match(v) if isinstance(v, str) else None
    return f"{m[1]} {m[2]}{'Z' if m[3] in ('Z', '+00:00') else (m[3] or '')}" if m else _plain(v)


def _print_code(d: dict[str, Any], lang: Lang = "en") -> None:
    """A code card's text as code: its own line breaks, each line numbered from the chunk's first line."""
    text_ = _UNTRUSTED.sub("", str(d.get("text") or ""))
    first = int(d.get("start_line") or 1)
    lines = text_.splitlines() or [""]
    width = len(str(first + len(lines) - 1))
    out.print(f"[bold]{label('card.lines', lang, first=first, last=d.get('end_line') or first + len(lines) - 1)}"
              "[/bold]" + escape(f" ({d.get('language') or '-'})"))
    for i, line in enumerate(lines):
        out.print(Text(f"{first + i:>{width}} │ {line}"), highlight=False, soft_wrap=True)


def print_card(d: dict[str, Any], lang: Lang = "en") -> None:
    """Readable text of any card: a headline, then its sections line by line (no raw dicts); `lang`: the
    labels' and section names' language (the card's field values are data)."""
    kind = d["schema"].split(".")[2].split("/")[0]
    name = d.get("display_name") or d.get("name") or d.get("title") or d.get("path") or ""
    ident = d.get("actor_id") or d.get("skill_id") or d.get("episode_id") or d.get("id")
    out.print(Text(f"{value(kind, lang)}: {_plain(name)}", style="bold"), highlight=False)
    _say("  " + label("card.id", lang, v=ident))
    _say("  " + label("card.index", lang, v=d["index_rev"]))
    print_task_answer(d, lang)  # what --task asked comes first, before front matter and hashes
    skip = {"schema", "index_rev", "display_name", "name", "title", "actor_id", "skill_id", "episode_id", "id",
            "task_answer", "task_fit", "truncated", "notices", "body", "transcript"}
    if kind == "code":
        _print_code(d, lang)
        skip |= {"text", "start_line", "end_line", "language"}
    for key, v in d.items():
        if key in skip or v in (None, [], {}):
            continue
        head = escape(field(key, lang))
        if isinstance(v, list) and v and isinstance(v[0], dict):
            out.print(f"[bold]{head}[/bold] ({len(v)})")
            for row in v[:20]:
                _say(f"  • {_row(row)}")
        elif isinstance(v, list):
            out.print(f"[bold]{head}[/bold] ({len(v)})")
            for x in v[:20]:
                _say(f"  • {_plain(x)}")
        elif isinstance(v, dict):
            out.print(f"[bold]{head}[/bold]")
            for k, x in v.items():
                if x not in (None, [], {}):
                    _say(f"  {k}: {_plain(x)}")
        else:
            out.print(Text(f"{field(key, lang)}: {_plain(v)}"), highlight=False)
    if d.get("body"):
        out.print(f"[bold]{label('card.body', lang)}[/bold]")
        out.print(Text(_UNTRUSTED.sub("", d["body"]), style="dim"), highlight=False)
    for ev in d.get("transcript", []):
        _say(f"  #{ev.get('seq')} {ev['role']}{' ' + ev['tool'] if ev.get('tool') else ''}"
             f"{' ERROR' if ev.get('is_error') else ''}: {_plain(ev.get('text'))[:300]}", "dim")
    for n in d.get("notices", []):
        out.print(f"[yellow]{escape(n['code'])}[/yellow] " + escape(n["message"]))
    for c in d.get("truncated", []):
        out.print(Text(label("card.cut", lang, field=c["field"], shown=c["shown_chars"], total=c["total_chars"],
                             rest=c["rest"]), style="yellow"))


def print_sql(d: dict[str, Any]) -> None:
    t = Table()
    for c in d["columns"]:
        t.add_column(Text(c))
    for r in d["rows"]:
        t.add_row(*(_cell(v) for v in r))
    out.print(t)
    if d.get("truncated"):
        err.print(f"(first {len(d['rows'])} rows; raise --limit for more)", markup=False)


def print_feedback(d: dict[str, Any], lang: Lang = "en") -> None:
    verdict = label("feedback.useful" if d["useful"] else "feedback.not_useful", lang)
    out.print(label("feedback", lang, verdict=verdict, id=d["result_id"], useful=d["votes"]["useful"],
                    not_useful=d["votes"]["not_useful"], boost=d["boost"]), markup=False, highlight=False)


# -- schedule -----------------------------------------------------------------------------------
def print_schedule(d: dict[str, Any], lang: Lang = "en") -> None:
    state = label("schedule.enabled" if d["enabled"] else "schedule.disabled", lang)
    out.print(label("schedule.head", lang, mode=d["mode"], times=", ".join(d["times"]), zone=d["zone"], state=state),
              markup=False, highlight=False)
    out.print(label("schedule.next", lang, v=", ".join(d["next_runs"]) or "-"), markup=False, highlight=False)
    last = d["last_run"] or {}
    outcome = value(last["outcome"], lang) if last.get("outcome") else ""
    out.print(label("schedule.last", lang, at=last.get("started_at") or "-", outcome=outcome).rstrip(),
              markup=False, highlight=False)
    due = d["due"]
    out.print(label("schedule.due", lang, due=label("yes" if due["due"] else "no", lang),
                    reason=due["reason"] or label("schedule.nothing_missed", lang),
                    slot=label("schedule.slot", lang, v=due["slot"]) if due["slot"] else "",
                    stale=value(d["stale"], lang)), markup=False, highlight=False)


# -- dispatch ---------------------------------------------------------------------------------
def _bullets(title: str, items: list[Any], indent: int = 3) -> None:
    """A titled list, one item a line (never comma-joined), its bullets 2 deeper than its title; nothing
    when empty."""
    if items:
        out.print(" " * indent + f"[bold]{title}[/bold]")
    for x in items:
        _say(" " * (indent + 2) + f"• {_plain(x)}")


def _target_line(t: dict[str, Any], lang: Lang = "en") -> str:
    d = t["dispatch"]
    av = label("dispatch.available", lang) if d["available"] else label("dispatch.unavailable", lang,
                                                                        v="; ".join(d["reasons"]))
    return label("dispatch.target", lang, name=t["name"], kind=value(t.get("kind", "-"), lang), id=t["actor_id"],
                 choice=t["choice"], mode=value(d["mode"], lang), av=av)


_PACK = ("prior_episodes", "code_refs", "skills", "artifacts")  # what a context pack holds, in this order


def print_dispatch(d: dict[str, Any], brief: bool = False, lang: Lang = "en") -> None:
    """The plan: who gets the task and why, then the task's acceptance and constraints, the risks, and what
    the context pack holds; `brief` (a commit after its dry run was shown) prints only what it recorded."""
    t = d.get("target")
    if t and not brief:
        out.print(f"[bold]{escape(value(d['mode'], lang))}[/bold] → " + escape(_target_line(t, lang)))
        _say(f"   {label('why', lang)}: " + "; ".join(t["why"]))
    pack = d["context_pack"]
    if not brief:
        for part in ("acceptance", "constraints", "risks"):
            _bullets(label(f"dispatch.{part}", lang), pack.get(part) or [])
        _say("   " + label("dispatch.context", lang, v=", ".join(
            label("dispatch.count", lang, n=len(pack[k]), label=label(f"dispatch.{k}", lang)) for k in _PACK
            if k in pack)))
        if d.get("handoff"):
            calls = ", ".join(c["tool"] for c in d["handoff"]["tool_calls"]) or label("dispatch.package_only", lang)
            _say("   " + label("dispatch.handoff", lang, id=d["handoff"]["assignment_id"], calls=calls,
                               execution=d["handoff"]["execution"]))
    if d.get("assignment"):
        a = d["assignment"]
        done = (f"[green]{label('dispatch.recorded', lang)}[/green] " if a["created"]
                else f"[yellow]{label('dispatch.already', lang)}[/yellow] ")
        out.print(f"[bold]{escape(value(d['mode'], lang))}[/bold] → " + done
                  + escape(f"{a['assignment_id']} → {a['package_file']}"))
    if d.get("suggestion"):
        out.print("   " + escape(label("dispatch.suggestion", lang, v=d["suggestion"]["name"])))
    for w in d.get("warnings", []):
        out.print(f"[yellow]{w['code']}[/yellow] " + escape(w["message"]))
    for e in d.get("errors", []):
        out.print(f"[red]{e['code']}[/red] " + escape(e["message"]))


def print_handoff(d: dict[str, Any], plan_shown: bool = False, lang: Lang = "en") -> None:
    """`akw dispatch show`: the recorded knowledge.handoff/v1 package as a person reads it (--json: the document);
    `plan_shown` (the demo, right after the dry run) leaves out what the plan already said."""
    a, h = d["assignment"], d["handoff"]
    pack = h["context_pack"]
    out.print(Text(label("handoff.head", lang, id=h["assignment_id"], dispatch=h["dispatch_id"],
                         status=a.get("status"), execution=h["execution"]), style="bold"), highlight=False)
    _say("   " + label("handoff.task", lang, v=_plain(h["task"].get("title") or h["task"].get("text"))))
    if not plan_shown:
        _say("   " + label("handoff.to", lang, v=_target_line({**h["target"], "choice": a.get("choice", "-")}, lang)))
    _say("   " + label("handoff.requested", lang, who=a.get("requested_by"), at=a.get("created_at"),
                       deadline=h["task"].get("deadline") or "-"))
    if not plan_shown:
        _bullets(label("why", lang), a.get("why") or [])
        _bullets(label("dispatch.acceptance", lang), h["task"].get("acceptance") or [])
        _bullets(label("dispatch.constraints", lang), h["task"].get("constraints") or [])
        _bullets(label("dispatch.risks", lang), pack.get("risks") or [])
    _bullets(label("dispatch.prior_episodes", lang),
             [f"{e['episode_id']}  {(e.get('time') or '')[:10]}  {value(e.get('outcome') or '-', lang)}"
              for e in pack.get("prior_episodes", [])])
    _bullets(label("dispatch.code_refs", lang),
             [f"{c['path']}:{c['start_line']}-{c['end_line']}  ({c.get('workspace')})"
              for c in pack.get("code_refs", [])])
    _bullets(label("dispatch.skills", lang), [label("handoff.uses", lang, name=k["name"], n=k.get("uses", 0))
                                            for k in pack.get("skills", [])])
    calls = ", ".join(c["tool"] for c in h.get("tool_calls", [])) or label("dispatch.package_only", lang)
    _say("   " + label("handoff.calls", lang, execution=h["execution"].replace("_", " "), calls=calls))
    if h.get("requires"):
        _say("   " + label("handoff.needs", lang, v=h["requires"]))
    _say("   " + label("handoff.package", lang, v=d["package_file"]))


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
    _print_env(d["env"], then='akw reindex && akw search "кто уже мигрировал iya.ru?"')


def _print_skill_brief(card: dict[str, Any], lang: Lang = "en") -> None:
    """UJ-2: the skill's answer to the task first, then who used it and what ships with it (the whole card:
    `akw get skill NAME --task …`)."""
    src = card.get("source") or {}
    where = src.get("workspace_id") or src.get("account") or src.get("root_path") if isinstance(src, dict) else src
    kind = src.get("root_kind") if isinstance(src, dict) else None
    facts = ", ".join(str(x) for x in (kind, where, card.get("status")) if x)
    out.print(Text(label("skill.brief", lang, name=card["name"], facts=facts), style="bold"), highlight=False)
    if card.get("when_to_use"):
        _say("  " + label("skill.when", lang, v=_plain(card["when_to_use"])))
    print_task_answer(card, lang)
    u = card.get("usage") or {}
    if isinstance(u, dict) and u.get("uses") is not None:
        _say(label("skill.used", lang, uses=u["uses"], actors=u.get("actors", 0),
                   first=str(u.get("first_used_at") or "-")[:10], last=str(u.get("last_used_at") or "-")[:10]))
    files = [r["path"] for r in card.get("resources") or []]
    if files:
        out.print(Text(label("skill.ships", lang, v=", ".join(files))), highlight=False)


def print_demo(d: dict[str, Any], lang: Lang = "en") -> None:
    """The demo's run and journeys, all in `lang`: the one language the demo ran its journeys in."""
    print_reindex(d["reindex"], lang)
    for j in d["journeys"]:
        out.rule(escape(f"{j['id']} · {j['question']}"))
        r = j["result"]
        if j["kind"] == "search":
            print_search(r, lang)
        elif j["kind"] == "skill":
            _print_skill_brief(r, lang)
        elif j["kind"] == "dispatch":
            print_dispatch(r["dry_run"], lang=lang)
            print_dispatch(r["commit"], brief=True, lang=lang)
            print_handoff(r["outbox"], plan_shown=True, lang=lang)
        else:
            print_status(r, lang)
    out.rule(label("demo.next", lang))
    for step in d.get("next_steps", []):
        _say(f"  {step['what']}: {step['command']}")
    _print_env(d["env"], lang=lang)


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
