"""Render a collected report as one self-contained HTML page (inline CSS and SVG) and as Markdown."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from warehouse.core.paths import private_dir
from warehouse.reports import svg
from warehouse.reports.history import METRICS

TEMPLATES = Path(__file__).with_name("templates")
OUTCOME_COLORS = {"success": "#3a9d5d", "partial": "#d9822b", "failure": "#c23b3b", "cancelled": "#6b6b6b",
                  "running": "#3b6ea5", "unknown": "#b5b5b5"}
STATE_RU = {"ready": "Активен", "not_ready": "Индексируется", "stale": "Устарел", "error": "Ошибка",
            "disabled": "Выключено", "degraded": "Активен (с ошибками)"}


def _env() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]),
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["num"] = lambda v, d=3: "–" if v is None else (f"{v:.{d}f}" if isinstance(v, float) else str(v))
    env.filters["mb"] = lambda v: "–" if not v else f"{v / 1e6:.1f} MB"
    return env


def charts(doc: dict[str, Any]) -> dict[str, str]:
    """The report's pictures, as inline SVG strings."""
    sources = doc["sources"]
    marts = doc["marts"]
    evals = doc["history"]["eval"]
    benches = [b for b in doc["history"]["bench"] if b["modes"]]
    out = {
        "sources": svg.bars([(name, s.get("units", 0)) for name, s in sorted(sources.items())],
                            "Source units indexed"),
        "actors": svg.bars([(a["display_name"] or a["actor_id"], a["episodes"]) for a in marts["actors"]],
                           "Episodes per actor (top 10)"),
        "skills": svg.bars([(s["name"], s["uses"] or 0) for s in marts["skills"]], "Uses per skill (top 10)"),
        "trend": svg.lines([e["index_rev"] or e["file"] for e in evals],
                           {m: [e["overall"].get(m) for e in evals] for m in ("recall@3", "mrr", "ndcg@10")},
                           "Golden set across eval reports", ymax=1.0),
    }
    out.update(timeline_charts(marts.get("timeline") or {}))
    if benches:
        last = benches[-1]
        items = [(m, v["p50_ms"] or 0) for m, v in sorted(last["modes"].items())]
        if last["fts5"].get("p50_ms") is not None:
            items.append(("SQLite FTS5 (baseline)", last["fts5"]["p50_ms"]))
        out["latency"] = svg.bars(items, f"Search p50 per mode, {last['scale']} ({last['index_rev']})", " ms")
    return out


def timeline_charts(tl: dict[str, Any]) -> dict[str, str]:
    """Episodes per period by outcome (stacked columns) and the success share per period (a line on [0, 1])."""
    periods = tl.get("periods") or []
    if not periods:
        return {}
    unit = tl["unit"]
    labels = [p[:7] if unit == "month" else p[5:] for p in periods]
    span = f"{periods[0]} … {periods[-1]}, UTC"
    return {"timeline": svg.columns(labels, tl["outcomes"], f"Episodes per {unit} by outcome ({span})",
                                    OUTCOME_COLORS),
            "share": svg.lines(labels, {"success share": tl["share"]},
                               f"Success share per {unit} (partial counts half)", ymax=1.0)}


def render(doc: dict[str, Any], out_dir: Path, private: bool = False) -> dict[str, str]:
    """Write report-<index_rev>.html/.md (and .json, the data behind them); return their paths.

    `private` (a folder under AKW_HOME): the folder 0700 and the files 0600 whatever the umask, like
    every other file of the home; elsewhere the files take the user's umask (a report is for sharing)."""
    env = _env()
    rev = doc["status"]["index_rev"] or "none"
    ctx = {"d": doc, "charts": charts(doc), "state_ru": STATE_RU.get(doc["status"]["state"], doc["status"]["state"]),
           "metrics": METRICS, "latest_eval": (doc["history"]["eval"] or [None])[-1],
           "benches": [b for b in doc["history"]["bench"] if b["modes"]][-3:]}
    if private:
        private_dir(out_dir)
    else:
        out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"html": out_dir / f"report-{rev}.html", "markdown": out_dir / f"report-{rev}.md",
             "json": out_dir / f"report-{rev}.json"}
    texts = {"html": env.get_template("report.html.j2").render(**ctx),
             "markdown": env.get_template("report.md.j2").render(**ctx),
             "json": json.dumps(doc, indent=1, ensure_ascii=False, default=str) + "\n"}
    for key, path in paths.items():
        _write(path, texts[key], 0o600 if private else None)
    return {k: str(v) for k, v in paths.items()}


def _write(path: Path, text: str, mode: int | None) -> None:
    """A file with `mode` from its creation on (no moment at the umask's mode), or the umask's."""
    if mode is None:
        path.write_text(text, encoding="utf-8")
        return
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    os.fchmod(fd, mode)  # an existing file keeps its old mode through O_CREAT
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
