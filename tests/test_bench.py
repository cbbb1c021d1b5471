"""`akw bench` smoke at a tiny scale (report shape and keys, not timings), plus its helpers."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
import zstandard

from warehouse.bench.fts5 import fts5_query
from warehouse.bench.mutate import _lines, append_event, pick_session
from warehouse.bench.queries import MIN_QUERIES, bench_queries
from warehouse.bench.run import Scale, run_bench
from warehouse.bench.stats import percentiles
from warehouse.evaluation.homes import ensure_generated

MODES = {"auto", "find_agent", "find_skill", "find_code", "find_knowledge"}


def _tree_hash(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink():
            h.update(str(p.relative_to(root)).encode() + p.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict:
    work, out = tmp_path_factory.mktemp("bench"), tmp_path_factory.mktemp("reports")
    scale = Scale("tiny", sessions=6, events=None, cold_runs=1, repeat=1, warmup=0, queries_per_mode=3,
                  mcp_searches=8, semantic=False)  # the semantic phases: measured by `akw bench --scale 100k`
    ensure_generated(work / "tiny-src", 6, 7)
    before = _tree_hash(work / "tiny-src")
    doc = run_bench(scale, work, out)
    doc["_source_unchanged"] = before == _tree_hash(work / "tiny-src")
    return doc


def test_report_shape(report: dict) -> None:
    assert report["schema"] == "akw.bench/v1" and report["scale"]["name"] == "tiny"
    assert Path(report["report_file"]).name == f"bench-tiny-{report['index_rev']}.json"
    assert json.loads(Path(report["report_file"]).read_text())["index_rev"] == report["index_rev"]
    assert set(report["machine"]) >= {"cores", "ram_gb", "python", "duckdb", "platform", "loadavg_at_start"}
    b = report["build"]
    assert set(b) == {"cold", "noop", "one_changed_session"}
    assert len(b["cold"]["runs"]) == 1 and b["cold"]["peak_rss_mb"] > 0 and b["cold"]["runs"][0]["docs"] > 0
    assert b["noop"]["median_s"] is not None and all(r["outcome"] == "noop" for r in b["noop"]["runs"])
    changed = b["one_changed_session"]["runs"]
    assert [r["outcome"] for r in changed] == ["published"] and changed[0]["changed_units"] >= 1
    assert changed[0]["docs"] == b["cold"]["runs"][0]["docs"] + 1  # exactly the appended event became a document
    assert report["semantic"] == {"skipped": "not measured at scale tiny"}
    assert set(report["search"]["modes"]) == MODES
    assert all(v["n"] == 3 and v["p50_ms"] <= v["p95_ms"] <= v["max_ms"] for v in report["search"]["modes"].values())
    filtered = report["search"]["filtered"]
    assert filtered["n"] == 3 and filtered["filters"]["workspaces"] and filtered["p50_ms"] <= filtered["max_ms"]
    assert filtered["peak_rss_mb"] > 0
    assert report["search"]["peak_rss_mb"] > 0
    f = report["baseline"]["sqlite_fts5"]
    assert f["docs"] == changed[0]["docs"] and f["queries"] == 3 and f["fts5_query_errors"] == 0
    assert 0.0 <= f["overlap_at_k_mean"] <= 1.0 and f["ratio_p50_ours_over_fts5"] > 0
    assert report["baseline"]["bm25s"].startswith("bm25s:")
    m = report["mcp"]
    assert m["searches"] == 8 and m["errors"] == 0 and m["latency"]["n"] == 8 and m["server_pid_found"]
    assert m["latency"]["p50_ms"] <= m["latency"]["p95_ms"] and m["rss_end"]["rss_mb"] > 0
    assert m["glibc_tunables"] == "glibc.malloc.tcache_count=1000"
    assert report["size"]["generation_bytes"] > 0 and report["size"]["home_bytes"] >= report["size"]["lake_bytes"] > 0


def test_generated_source_is_never_written(report: dict) -> None:
    assert report["_source_unchanged"] is True


def test_append_event_adds_one_valid_frame(tmp_path: Path) -> None:
    ensure_generated(tmp_path, 6, 7)
    target = pick_session(tmp_path / "dsh")
    lines, clean = _lines(target)
    assert clean
    before = target.read_bytes()
    ev = append_event(target, "t")
    after = target.read_bytes()
    assert after.startswith(before)
    frame = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(after[len(before):]))
    assert json.loads(frame.read().decode()) == ev
    new_lines, _ = _lines(target)
    assert new_lines[:-1] == lines and json.loads(new_lines[-1])["seq"] == 1 + max(
        json.loads(x)["seq"] for x in lines[1:])


def test_fts5_query_is_a_literal() -> None:
    assert fts5_query('кто чинил "mysql" (176.99.5.35)?') == '"кто" OR "чинил" OR "mysql" OR "176.99.5.35"'
    assert fts5_query('a"b') == '"a""b"'  # an inner quote is doubled, never closes the string
    assert fts5_query("a OR b*") == '"a" OR "OR" OR "b*"'
    assert fts5_query(" — … ") == ""


def test_percentiles_nearest_rank() -> None:
    p = percentiles([float(x) for x in range(1, 21)])  # 1..20: ceil(0.95·20) = 19th value
    assert (p["n"], p["p50_ms"], p["p95_ms"], p["max_ms"]) == (20, 10.5, 19.0, 20.0)
    assert percentiles([]) == {"n": 0}


def test_bench_query_list_is_fixed() -> None:
    a, b = bench_queries(), bench_queries()
    assert a == b and len(a) >= MIN_QUERIES and len(set(a)) == len(a)
