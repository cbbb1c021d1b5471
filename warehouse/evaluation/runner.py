"""`akw eval`: run the golden set through `Warehouse.search` on generated data and score it.

The synthetic slice runs on a home over the generated sources; the real-skills slice on a
second home whose settings add the real skill collections as extra skill dirs (skipped with a
reason when those folders are absent); the real-data slice on a third home converted from the
real SWE-agent trajectories in fixtures/realdata (once per data folder, under `real-data/`),
judged against that home's own manifest. Per query the ranked list chosen by its selector is
compared with the manifest-resolved answer; the report aggregates overall, per kind, per
language and per slice. Empty-answer queries are scored only by false hits (golden/README.md),
overall and per slice.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from warehouse.evaluation import homes
from warehouse.evaluation.golden import GoldenQuery, Resolver, golden_files, load_golden
from warehouse.evaluation.metrics import dedupe, mean, ranking_metrics
from warehouse.search.request import search_request

SCHEMA = "akw.eval/v1"
BELOW_THRESHOLD = "KNOWLEDGE_EVAL_BELOW_THRESHOLD"
DEFAULT_GOLDEN = homes.REPO / "golden"  # every *.yaml in it: queries.yaml (generated data), transcripts.yaml (real)
METRICS = ("recall@1", "recall@3", "recall@10", "hit@3", "mrr", "ndcg@10")


@dataclass
class EvalConfig:
    golden: Path = DEFAULT_GOLDEN
    data_dir: Path = field(default_factory=lambda: homes.default_data_dir("eval", 24, 7))
    sessions: int = 24
    seed: int = 7
    events: int | None = None
    realdata: Path | None = field(default_factory=homes.realdata_dir)  # None: skip the real-skills slice
    trajectories: Path | None = field(default_factory=homes.realdata_trajectories)  # None: skip real_data
    transcripts: Path | None = field(default_factory=homes.transcripts_dir)  # None: skip real_transcripts
    agents: Path | None = field(default_factory=homes.agents_dir)  # None: skip real_agents
    limit: int = 10
    out_dir: Path | None = Path("reports")  # None: do not write a report file
    semantic: str = "auto"  # off | on | both | auto (= both when the [semantic] extra is installed, else off)


SEMANTIC_CHOICES = ("off", "on", "both", "auto")


def semantic_modes(choice: str) -> list[str]:
    """The semantic settings eval runs the golden set with, the report's primary one first."""
    from warehouse.core import embed

    if choice not in SEMANTIC_CHOICES:
        raise ValueError(f"semantic: one of {', '.join(SEMANTIC_CHOICES)}")
    if choice == "auto":
        return ["off", "on"] if embed.installed() else ["off"]
    return ["off", "on"] if choice == "both" else [choice]


@dataclass(frozen=True)
class Thresholds:
    """CI floor of spec AC-5 by default; the issue's targets are 0.95 / 0.85 / 0.02."""

    min_recall3: float = 0.80
    min_mrr: float = 0.60
    max_zero: float = 0.10
    max_false_hit: float | None = None  # reported always, gated only when set

    def failures(self, overall: dict[str, Any], empty: dict[str, Any]) -> list[str]:
        out = []
        checks = [("recall@3", overall.get("recall@3"), self.min_recall3, ">="),
                  ("mrr", overall.get("mrr"), self.min_mrr, ">="),
                  ("zero_result_rate", overall.get("zero_result_rate"), self.max_zero, "<=")]
        if self.max_false_hit is not None:
            checks.append(("false_hit_rate", empty.get("false_hit_rate"), self.max_false_hit, "<="))
        for name, value, limit, op in checks:
            if value is None:
                out.append(f"{name}: no queries were scored")
            elif (op == ">=" and value < limit) or (op == "<=" and value > limit):
                out.append(f"{name} = {value:.3f}, needs {op} {limit}")
        return out


# -- one query ------------------------------------------------------------------------------------
def ranked_keys(resp: dict[str, Any], target: str) -> list[tuple[str, str]]:
    """(key, label) of the list a query is judged on, deduped in order (see golden/README.md)."""
    lanes = resp.get("lanes", {})
    if target == "actors":
        pairs = [(a["actor_id"], a.get("name") or "") for a in resp.get("actors", [])]
    elif target == "episodes":
        pairs = [(i["session_id"], (i.get("session") or {}).get("title") or i.get("event_type", ""))
                 for i in lanes.get("episodes", {}).get("items", [])]
    elif target == "skills":
        pairs = [(i["name"], "/".join(Path(i.get("path") or "").parts[-3:]))
                 for i in (lanes.get("skills") or {}).get("items", [])]
    else:
        pairs = [(f"{i.get('workspace')}:{i['path']}", f"{i['path']}:{i['start_line']}")
                 for i in lanes.get("code", {}).get("items", [])]
    keys = dedupe(k for k, _ in pairs)
    labels = {}
    for k, lab in pairs:
        labels.setdefault(k, lab)
    return [(k, labels[k]) for k in keys]


def _counts(resp: dict[str, Any]) -> dict[str, int]:
    lanes = resp.get("lanes", {})
    return {"actors": len(resp.get("actors", [])),
            **{lane: len((lanes.get(lane) or {}).get("items", [])) for lane in ("episodes", "code", "skills")}}


def _record(q: GoldenQuery) -> dict[str, Any]:
    """What every record of a query says, run or skipped."""
    return {"id": q.id, "kind": q.kind, "lang": q.lang, "slice": q.slice, "mode": q.mode, "text": q.text,
            "selector": q.expect.selector, "split": q.split, "depth": q.depth}


def run_query(wh: homes.Home, resolver: Resolver, q: GoldenQuery, limit: int) -> dict[str, Any]:
    """Search one golden query and score it; an unresolvable expectation is reported as skipped."""
    rec = _record(q)
    exp = resolver.resolve(q)
    filters, problem = resolver.filters(q)
    problem = exp.problem or problem
    if problem:
        return {**rec, "status": "skipped", "reason": problem}
    req = search_request(q.text, q.mode, limit, request_id=f"eval:{q.id}", **({"filters": filters} if filters else {}))
    t0 = time.perf_counter()
    resp = wh.search(req)
    rec.update(status="ok", ms=round((time.perf_counter() - t0) * 1000, 2), found=resp.get("found"),
               intent=resp["routing"]["intent"], returned=_counts(resp),
               warnings=sorted({w["code"] for w in resp.get("warnings", [])}), match=resp.get("match"))
    if exp.empty:
        c = rec["returned"]
        rec.update(target=None, false_hit=c["actors"] + c["episodes"] > 0, any_item=sum(c.values()) > 0)
        return rec
    ranked = ranked_keys(resp, exp.target)
    keys = [k for k, _ in ranked]
    rel = set(exp.relevant)
    rec.update(target=exp.target, relevant=len(rel), zero_result=not keys,
               first_hit=next((i for i, k in enumerate(keys, 1) if k in rel), None),
               metrics=ranking_metrics(keys, rel),
               top=[{"key": k, "label": lab, "relevant": k in rel} for k, lab in ranked[:5]])
    return rec


# -- aggregation ----------------------------------------------------------------------------------
def aggregate(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Means of the per-query metrics over scored (non-empty, not skipped) queries."""
    scored = [r for r in records if r["status"] == "ok" and r.get("target")]
    out: dict[str, Any] = {"n": len(scored)}
    for m in METRICS:
        out[m] = mean(r["metrics"][m] for r in scored)
    out["zero_result_rate"] = mean(1.0 if r["zero_result"] else 0.0 for r in scored)
    out["not_found_rate"] = mean(0.0 if r["found"] else 1.0 for r in scored)
    # the answer signal (search/match.py): how many answerable queries come back `strong`, so that
    # marking every answer weak cannot pass for honesty (issue 24: >= 0.8 on the real slice)
    out["strong_rate"] = mean(1.0 if (r.get("match") or {}).get("level") == "strong" else 0.0 for r in scored)
    return out


def aggregate_empty(records: list[dict[str, Any]]) -> dict[str, Any]:
    empty = [r for r in records if r["status"] == "ok" and r["kind"] == "empty"]
    return {"n": len(empty), "false_hit_rate": mean(1.0 if r["false_hit"] else 0.0 for r in empty),
            "any_item_rate": mean(1.0 if r["any_item"] else 0.0 for r in empty),
            "found_rate": mean(1.0 if r["found"] else 0.0 for r in empty)}


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    def group(key: str) -> dict[str, Any]:
        vals = sorted({r[key] for r in records})
        return {v: aggregate([r for r in records if r[key] == v]) for v in vals}

    by_kind = group("kind")
    by_kind.pop("empty", None)
    slices = sorted({r["slice"] for r in records})
    empty_by_slice = {v: aggregate_empty([r for r in records if r["slice"] == v]) for v in slices}
    return {"overall": aggregate(records), "empty": aggregate_empty(records), "by_kind": by_kind,
            "by_lang": group("lang"), "by_slice": group("slice"),
            "empty_by_slice": {k: v for k, v in empty_by_slice.items() if v["n"]},
            "skipped": sum(r["status"] == "skipped" for r in records)}


# -- the whole run --------------------------------------------------------------------------------
@dataclass
class GoldenRun:
    """The homes of one semantic setting and the records of every golden query run on them."""

    rev: str
    records: list[dict[str, Any]]
    resolver: Resolver
    revs: dict[str, str | None] = field(default_factory=dict)  # slice -> index_rev of its own home
    notes: dict[str, str | None] = field(default_factory=dict)  # slice -> why it was skipped (None: ran)




# why a slice's queries are skipped when its data is not on this machine
MISSING = {
    "real_skills": "real skills not found at <repo>/../shared/realdata/skills: real_skill queries skipped",
    "real_data": "real trajectories not found at fixtures/realdata/trajectories: real_data queries skipped",
    "real_transcripts": ("real transcripts not found at <repo>/../shared/realdata/transcripts: "
                         "real_transcripts queries skipped"),
    "real_agents": ("real Claude Code / Codex samples not found at <repo>/../shared/realdata/agents: "
                    "real_agents queries skipped"),
}


def _run_golden(opener: homes.Opener, cfg: EvalConfig, golden: Any, manifest: dict[str, Any], semantic: bool,
                say: Callable[[str], None]) -> GoldenRun:
    """Index the homes of one semantic setting and run every golden query on them."""
    tag = " (semantic on)" if semantic else ""
    wants = {q.slice for q in golden.queries}
    wh = homes.open_home(opener, cfg.data_dir, "akw-home", semantic=semantic)
    say(f"indexing the synthetic home{tag} …")
    rev = wh.reindex(mode="incremental")["index_rev"]
    real_names = homes.real_skill_names(cfg.realdata) if cfg.realdata is not None else None
    run = GoldenRun(rev, [], Resolver(manifest, real_names))
    on: dict[str, tuple[homes.Home, Resolver]] = {}

    def wanted(slice_: str, source: Path | None) -> bool:
        """The slice has queries and its data is here (else its queries are skipped with the reason)."""
        if slice_ in wants and source is None:
            run.notes[slice_] = MISSING[slice_]
        return slice_ in wants and source is not None

    def index(slice_: str, home: homes.Home, resolver: Resolver) -> None:
        say(f"indexing the {slice_.replace('_', '-')} home{tag} …")
        run.revs[slice_] = home.reindex(mode="incremental")["index_rev"]
        on[slice_] = (home, resolver)

    if wanted("real_skills", cfg.realdata):
        index("real_skills", homes.open_home(opener, cfg.data_dir, "akw-home-real", homes.real_skill_dirs(cfg.realdata),
                                             semantic=semantic), run.resolver)
    if wanted("real_data", cfg.trajectories):
        rd_dir = Path(cfg.data_dir) / "real-data"
        rd_resolver = Resolver(homes.ensure_realdata(rd_dir, cfg.trajectories))  # the data first, then its home
        index("real_data", homes.open_home(opener, rd_dir, "akw-home", semantic=semantic), rd_resolver)
    if wanted("real_transcripts", cfg.transcripts):
        rt_dir = Path(cfg.data_dir) / "real-transcripts"
        rt_resolver = Resolver(homes.ensure_transcripts(rt_dir, cfg.transcripts), real_names)
        skill_dirs = homes.real_skill_dirs(cfg.realdata) if cfg.realdata is not None else None
        index("real_transcripts", homes.open_home(opener, rt_dir, "akw-home", skill_dirs, semantic=semantic),
              rt_resolver)
    if wanted("real_agents", cfg.agents):
        ag_dir = Path(cfg.data_dir) / "real-agents"
        ag_resolver = Resolver(homes.ensure_agents(ag_dir, cfg.agents))
        index("real_agents", homes.open_home(opener, ag_dir, "akw-home", semantic=semantic), ag_resolver)
    for note in run.notes.values():
        say(note or "")
    for q in golden.queries:
        if q.slice in run.notes:
            run.records.append({**_record(q), "status": "skipped", "reason": run.notes[q.slice]})
            continue
        home, resolver = on.get(q.slice, (wh, run.resolver))
        run.records.append(run_query(home, resolver, q, cfg.limit))
    return run


def semantic_section(runs: dict[str, tuple[Any, ...]]) -> dict[str, Any]:
    """Every slice with semantic off and on, side by side (plus each setting's empty-answer checks)."""
    out: dict[str, Any] = {"modes": list(runs), "by_slice": {}, "by_slice_lang": {}, "empty": {}, "index_rev": {}}
    for mode, run in runs.items():
        rev, records = run.rev, run.records
        summary = summarize(records)
        out["index_rev"][mode] = rev
        out["empty"][mode] = summary["empty"]
        out.setdefault("overall", {})[mode] = summary["overall"]
        for name, agg in summary["by_slice"].items():
            out["by_slice"].setdefault(name, {})[mode] = agg
        # the empty-answer queries of each slice, scored by false hits only
        for name in summary["by_slice"]:
            out["by_slice"][name].setdefault("empty", {})[mode] = aggregate_empty(
                [r for r in records if r["slice"] == name])
        # each slice per language: a Russian question about English work is the case the slices exist for
        for (name, lang) in sorted({(r["slice"], r["lang"]) for r in records}):
            out["by_slice_lang"].setdefault(name, {}).setdefault(lang, {})[mode] = aggregate(
                [r for r in records if r["slice"] == name and r["lang"] == lang])
    if len(runs) > 1:
        extra = list(runs)[1]
        out["queries"] = {extra: runs[extra].records}
    return out


def run_eval(opener: homes.Opener, cfg: EvalConfig, thresholds: Thresholds = Thresholds(),
             log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Generate (or reuse) data, index it, run every golden query, return (and write) the report.

    `opener` makes a warehouse over given paths (`Warehouse`): eval drives the API, it does not import it.
    """
    say = log or (lambda _m: None)
    t0 = time.perf_counter()
    golden = load_golden(cfg.golden)
    say(f"data: {cfg.data_dir} (sessions={cfg.sessions}, seed={cfg.seed})")
    manifest = homes.ensure_generated(cfg.data_dir, cfg.sessions, cfg.seed, cfg.events)
    modes = semantic_modes(cfg.semantic)
    runs = {mode: _run_golden(opener, cfg, golden, manifest, mode == "on", say) for mode in modes}
    first = runs[modes[0]]
    rev, records = first.rev, first.records
    summary = summarize(records)
    golden_sha = hashlib.sha256()
    for f in golden_files(cfg.golden):
        golden_sha.update(Path(f).read_bytes())
    failures = thresholds.failures(summary["overall"], summary["empty"])
    report = {
        "schema": SCHEMA, "index_rev": rev, "index_rev_real_skills": first.revs.get("real_skills"),
        "data": {"dir": str(Path(cfg.data_dir).absolute()), "sessions": cfg.sessions, "seed": cfg.seed,
                 "events": manifest.get("events"), "tasks": len(first.resolver.tasks)},
        "golden": {"path": str(cfg.golden), "files": [str(f) for f in golden_files(cfg.golden)],
                   "queries": len(golden.queries), "sha256": golden_sha.hexdigest()},
        "real_skills": str(cfg.realdata) if "real_skills" in first.revs else first.notes.get("real_skills"),
        "index_rev_real_data": first.revs.get("real_data"),
        "real_data": (str(Path(cfg.data_dir).absolute() / "real-data") if "real_data" in first.revs
                      else first.notes.get("real_data")),
        "index_rev_real_transcripts": first.revs.get("real_transcripts"),
        "real_transcripts": (str(cfg.transcripts) if "real_transcripts" in first.revs
                             else first.notes.get("real_transcripts")),
        "index_rev_real_agents": first.revs.get("real_agents"),
        "real_agents": str(cfg.agents) if "real_agents" in first.revs else first.notes.get("real_agents"),
        "thresholds": asdict(thresholds), "summary": summary, "passed": not failures, "failures": failures,
        "queries": records, "semantic": semantic_section(runs), "duration_s": round(time.perf_counter() - t0, 2),
    }
    if failures:
        report["errors"] = [{"code": BELOW_THRESHOLD, "message": "; ".join(failures)}]
    if cfg.out_dir is not None:
        out = Path(cfg.out_dir) / f"eval-{rev}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        report["report_file"] = str(out)
    return report
