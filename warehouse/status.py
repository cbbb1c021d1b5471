"""`knowledge_status` (spec FR-9): an honest state of the warehouse, cheap to compute."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from warehouse import generation
from warehouse.paths import Paths
from warehouse.runs import read_runs
from warehouse.schedule import next_run
from warehouse.settings import Settings
from warehouse.state import load_all_units


def _parse(ts: str | None) -> datetime | None:
    if not ts:
        return None
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


def status(paths: Paths, settings: Settings, now: datetime | None = None) -> dict[str, Any]:
    now = now or datetime.now(UTC)
    gen = generation.current(paths.generations)
    runs = read_runs(paths)
    last = runs[-1] if runs else None
    last_ok = next((r for r in reversed(runs) if r.get("outcome") in ("published", "noop")), None)
    units = load_all_units(paths.state_dir)
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
    last_ok_at = _parse(last_ok.get("finished_at")) if last_ok else None
    stale = last_ok_at is not None and now - last_ok_at > timedelta(hours=settings.schedule.stale_after_hours)
    if not settings.enabled:
        state = "disabled"
    elif last is not None and last.get("outcome") == "failed" and gen is None:
        state = "error"
    elif gen is None:
        state = "not_ready"
    elif stale:
        state = "stale"
    elif errors or (last is not None and last.get("outcome") == "failed"):
        state = "degraded"
    else:
        state = "ready"
    team = _team(paths, settings)
    if team is not None and team["degraded"] and state == "ready":
        state = "degraded"  # the team catalog is away: local work goes on, the next push catches up
    nxt = next_run(settings.schedule, now) if settings.enabled else None
    # counts/coverage come from the run that built the published generation (a later no-op has none)
    last_build = next((r for r in reversed(runs) if r.get("outcome") == "published"), None)
    build = (last_build or {}).get("build") or {}
    doc = {
        "enabled": settings.enabled,
        "state": state,
        "index_rev": gen.index_rev if gen else None,
        "generation": gen.path.name if gen else None,
        "published_at": gen.published_at if gen else None,
        "last_run": {k: last.get(k) for k in ("run_id", "mode", "outcome", "started_at", "finished_at",
                                                "duration_s", "index_rev")} if last else None,
        "next_run": nxt.isoformat() if nxt else None,
        "db_bytes": gen.path.stat().st_size if gen else 0,
        "counts": build.get("counts", {}),
        "coverage": build.get("coverage"),
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


def _team(paths: Paths, settings: Settings) -> dict[str, Any] | None:
    """The team lake as this machine last saw it (its last push), without touching the network."""
    if settings.lake.backend != "ducklake":
        return None
    from warehouse.team.local import read_push

    last = read_push(paths).get("last_attempt") or {}
    return {"writer_id": settings.lake.writer_id, "degraded": bool(last) and not last.get("ok"),
            "last_push_at": last.get("at"), "snapshot_id": last.get("snapshot_id"), "error": last.get("error")}


def _semantic(settings: Settings, build: dict[str, Any]) -> dict[str, Any]:
    """Whether the vector side can answer: enabled, model installed, and vectors in the published generation."""
    from warehouse import embed

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
    return {"enabled": settings.semantic.enabled, "provider": settings.semantic.provider, "local": True,
            "installed": installed, "model": embed.model_key() if installed else None, "state": state,
            "vectors": vectors}
