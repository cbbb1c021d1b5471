"""`knowledge_status` (spec FR-9): an honest state of the warehouse, cheap to compute."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from warehouse.core.paths import Paths
from warehouse.core.settings import Settings
from warehouse.core.source_roots import root_states
from warehouse.core.tokenizer import CYRILLIC_INDEX_SHARE
from warehouse.home import generation, usage
from warehouse.home.runs import read_runs, run_in_progress
from warehouse.home.schedule import next_run
from warehouse.home.state import load_all_units


def _parse(ts: str | None) -> datetime | None:
    if not ts:
        return None
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


def status(paths: Paths, settings: Settings, now: datetime | None = None) -> dict[str, Any]:
    """The published generation, the sources as they are now, and what the last and any interrupted
    run did; `state` is one of ready | not_ready | degraded | stale | disabled, with `reason` and `fix`
    when it is not ready (docs/operations.md)."""
    now = now or datetime.now(UTC)
    gen = generation.current(paths.generations)
    runs = read_runs(paths)
    last = runs[-1] if runs else None
    last_ok = next((r for r in reversed(runs) if r.get("outcome") in ("published", "noop")), None)
    # counts/coverage come from the run that built the published generation (a later no-op has none)
    last_build = published_build(runs, gen)
    build = (last_build or {}).get("build") or {}
    per_source, errors = _units(load_all_units(paths.state_dir))
    errors += _source_errors(last, {(e["source"], e["unit"]) for e in errors})
    left_out = quarantined(last_build)
    errors += left_out
    roots = root_states(paths, settings)
    in_progress = run_in_progress(paths)
    notes = _notes(in_progress)
    # None: the run log that built the published generation is gone (state/ deleted): unknown, not zero
    doc_count = (build.get("counts") or {}).get("ak_document")
    documents = (int(doc_count) if doc_count is not None else None) if gen else 0
    last_ok_at = _parse(last_ok.get("finished_at")) if last_ok else None
    stale = last_ok_at is not None and now - last_ok_at > timedelta(hours=settings.schedule.stale_after_hours)
    vanished = [r for r in roots.values() if r.state == "unavailable"]
    state, reason, fix = "ready", None, None
    if not settings.enabled:
        state, reason, fix = "disabled", "agent-knowledge is disabled (enabled is false in config.yaml)", "akw enable"
    elif gen is None or documents == 0:
        state = "not_ready"
        if vanished:
            reason, fix = _missing(vanished)
        elif gen is not None:
            reason, fix = "the published index holds no documents", "check DSH_HOME / AUTOCLAW_ROOT (akw sources)"
        elif last is not None and last.get("outcome") == "failed":
            reason = "the last reindex failed: " + "; ".join(e.get("code", "") for e in last.get("errors", [])[-1:])
            fix = "fix the cause shown in last_run.errors, then run `akw reindex`"
        else:
            reason, fix = "nothing is indexed yet", "run `akw reindex`"
    elif vanished or errors or (last is not None and last.get("outcome") == "failed"):
        state = "degraded"
        if vanished:
            reason, fix = _missing(vanished)
            reason += " (the index keeps its last good data)"
        elif errors and len(errors) == len(left_out):
            reason = f"{len(left_out)} source unit(s) could not be built and are left out of the index"
            fix = "see errors[] (akw sources); `akw reindex --mode full` reads them again"
        elif errors:
            reason = f"{len(errors)} source unit(s) could not be read; their last good data is kept"
            fix = "see errors[] (akw sources), fix or remove the named files, then run `akw reindex`"
        else:
            reason, fix = "the last reindex failed; the previous generation still serves", "run `akw reindex`"
    elif stale:
        hours = settings.schedule.stale_after_hours
        state, reason, fix = "stale", f"the last successful run is older than {hours} h", "run `akw reindex`"
    team = _team(paths, settings)
    if team is not None and team["degraded"] and state == "ready":
        # the team catalog is away: local work goes on, the next push catches up
        state, reason, fix = "degraded", "the team catalog could not be reached at the last push", \
            "check the network / pgpass (docs/team.md); the next run pushes"
    nxt = next_run(settings.schedule, now) if settings.enabled else None
    doc = {
        "enabled": settings.enabled,
        "state": state,
        "reason": reason,
        "fix": fix,
        "disabled": None if settings.enabled else {
            "reason": "enabled is false in config.yaml (akw disable / akw config set enabled=false)",
            "index_kept": gen is not None, "enable": "akw enable"},
        "index_rev": gen.index_rev if gen else None,
        "generation": gen.path.name if gen else None,
        "published_at": gen.published_at if gen else None,
        "documents": documents,
        "last_run": {**{k: last.get(k) for k in ("run_id", "mode", "outcome", "started_at", "finished_at",
                                                   "duration_s", "index_rev", "errors")},
                     **({"warnings": last["warnings"]} if last.get("warnings") else {}),
                     **({"first_build": True} if last.get("first_build") else {})} if last else None,
        "interrupted_run": in_progress,
        "notes": notes,
        "next_run": nxt.isoformat() if nxt else None,
        "db_bytes": gen.path.stat().st_size if gen else 0,
        "counts": build.get("counts", {}),
        "usage": usage.summary(paths),  # content-free answer metrics per surface, last 7 days (FR-9)
        "coverage": build.get("coverage"),
        "roots": {name: r.to_dict() for name, r in roots.items()},
        "sources": per_source,
        "errors": errors,
        "semantic": _semantic(settings, build),
        "degradations": [
            {"source": name, "units_failed": s["error"],
             "codes": sorted({e["code"] for e in errors if e["source"] == name})}
            for name, s in sorted(per_source.items()) if s["error"]
        ],
    }
    if team is not None:  # only with lake.backend=ducklake: the local status document is unchanged
        doc["team"] = team
    return doc


def _missing(vanished: list[Any]) -> tuple[str, str]:
    """One reason and one fix for the missing roots (skills and code repeat the DSH home's)."""
    return ("; ".join(dict.fromkeys(r.message or r.source for r in vanished)),
            "; ".join(dict.fromkeys(r.fix for r in vanished if r.fix)))


def _units(units: list[dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    per_source: dict[str, dict[str, Any]] = {}
    errors: list[dict[str, Any]] = []
    for u in units:
        s = per_source.setdefault(u["source"], {"units": 0, "ok": 0, "error": 0, "excluded": 0, "rows": {}})
        s["units"] += 1
        s[u["status"]] = s.get(u["status"], 0) + 1
        for k, v in (u.get("counts") or {}).items():
            if isinstance(v, int):
                s["rows"][k] = s["rows"].get(k, 0) + v
        if u["status"] == "error":
            errors.append({"code": u.get("error_code"), "source": u["source"], "unit": u["unit"],
                           "message": u.get("error")})
    return per_source, errors


def _source_errors(last: dict[str, Any] | None, seen: set[tuple[str, str]]) -> list[dict[str, Any]]:
    """Problems above one unit the last run met (a corrupt registry, a missing root or skills dir):
    they have no unit state, so they would vanish from status without this."""
    out = []
    for src in ((last or {}).get("extract") or {}).get("sources", []):
        for e in src.get("errors", []):
            key = (e.get("source") or src["source"], e.get("unit", ""))
            if key not in seen:
                seen.add(key)
                out.append({"code": e.get("code"), "source": key[0], "unit": key[1], "message": e.get("message")})
    return out


def published_build(runs: list[dict[str, Any]], gen: generation.Generation | None) -> dict[str, Any] | None:
    """The run record that built the published generation `gen` (the newest published one without it)."""
    return next((r for r in reversed(runs) if r.get("outcome") == "published"
                 and (gen is None or r.get("index_rev") == gen.index_rev)), None)


def quarantined(build_run: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The units the published generation's build left out (indexing/quarantine.py): they stay errors of the
    status until a build takes them in again, however many no-op runs come after."""
    return [e for e in (build_run or {}).get("errors", [])
            if any(e.get("unit") == q["unit"] and e.get("source") == q["source"]
                   for q in ((build_run or {}).get("build") or {}).get("quarantined", []))]


def _notes(in_progress: dict[str, Any] | None) -> list[dict[str, str]]:
    if not in_progress:
        return []
    if in_progress["alive"]:
        return [{"code": "KNOWLEDGE_REINDEX_RUNNING",
                 "message": f"a {in_progress.get('mode')} reindex started at {in_progress.get('started_at')} is "
                            "running; the published generation serves until it publishes"}]
    return [{"code": "KNOWLEDGE_REINDEX_INTERRUPTED",
             "message": f"a {in_progress.get('mode')} reindex started at {in_progress.get('started_at')} was "
                        "interrupted before it finished; the published generation (if any) is unchanged and "
                        "still serves, counts describe it",
             "fix": "run `akw reindex` to finish the work"}]


def _team(paths: Paths, settings: Settings) -> dict[str, Any] | None:
    """The team lake as this machine last saw it (its last push), without touching the network."""
    if settings.lake.backend != "ducklake":
        return None
    from warehouse.home.team import read_push

    last = read_push(paths).get("last_attempt") or {}
    return {"writer_id": settings.lake.writer_id, "degraded": bool(last) and not last.get("ok"),
            "last_push_at": last.get("at"), "snapshot_id": last.get("snapshot_id"), "error": last.get("error")}


def _semantic(settings: Settings, build: dict[str, Any]) -> dict[str, Any]:
    """Whether the vector side can answer: enabled, model installed, and vectors in the published generation;
    `hint` when it cannot and the index holds almost no Russian text (issue 24: the language gap)."""
    from warehouse.core import embed

    vectors = build.get("semantic")
    installed = embed.installed()
    if not settings.semantic.enabled:
        state = "off"
    elif not installed:
        state = "unavailable"  # KNOWLEDGE_SEMANTIC_UNAVAILABLE: the [semantic] extra is missing
    elif not vectors:
        state = "not_built"  # enabled after the published build: the next reindex embeds
    else:
        state = "ready"
    share = (build.get("lexical") or {}).get("cyrillic_share")
    gap = state != "ready" and share is not None and share < CYRILLIC_INDEX_SHARE
    return {"enabled": settings.semantic.enabled, "provider": settings.semantic.provider, "local": True,
            "installed": installed, "model": embed.model_key() if installed else None, "state": state,
            "vectors": vectors, "index_cyrillic_share": share,
            "hint": ("the index holds almost no Russian text: a question in Russian about this work shares no "
                     "words with it and finds little without search by meaning (`akw config set "
                     "semantic.enabled=true`, then `akw reindex`)") if gap else None}
