"""`akw report`: the HTML page rendered in headless Chromium shows a person the state, coverage, metrics and
their trend, benchmarks and top lists, with inline SVG charts and nothing fetched; content-free by default."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from browser_support import chrome, screenshot
from homes import BuiltHome
from report_samples import write_history

from warehouse.api import Warehouse

AKW = Path(sys.executable).with_name("akw")


@pytest.fixture(scope="module")
def wh(small: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return small.copy(tmp_path_factory.mktemp("report"))


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_history(tmp_path_factory.mktemp("history"))


def _episode_title(wh: Warehouse) -> str:
    rows = wh.sql("SELECT title FROM ak_episode WHERE length(title) > 12 ORDER BY started_at DESC LIMIT 1")["rows"]
    return rows[0][0]


@pytest.mark.browser
def test_the_report_shows_a_person_what_they_need(wh: Warehouse, history: Path, tmp_path: Path) -> None:
    title = _episode_title(wh)
    wh.search_text(title)  # a search the usage metrics count (content-free: its query is not in the report)
    doc = wh.report(tmp_path, reports_dir=history)
    html = Path(doc["files"]["html"])
    text = html.read_text(encoding="utf-8")
    assert doc["snippets"] is False and title not in text  # content-free by default
    assert "<script" not in text and "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    with chrome() as d:
        d.get(html.as_uri())
        assert d.find_element("css selector", "h1").text == "Agent Knowledge Warehouse — report"
        state = d.find_element("id", "state").text
        assert "ready" in state and "Активен" in state
        coverage = d.find_element("id", "coverage").text
        assert "dsh" in coverage and "sessions" in coverage and "NO" not in coverage
        assert "No degradations" in d.find_element("id", "errors").text
        used = d.find_element("id", "usage").text  # FR-9: how the answers behave in use, per surface
        assert "api" in used and "zero-result" in used and "P50 / P95" in used
        golden = d.find_element("id", "golden").text
        assert "eval-ak-0000000000000002.json" in golden and "0.860" in golden
        bench = d.find_element("id", "bench").text
        assert "SQLite FTS5 (baseline)" in bench and "2023-11-14 22:13" in bench and "(file time)" in bench
        actors = d.find_elements("css selector", "#actors tr")
        assert len(actors) >= 3 and "standard agent" in d.find_element("id", "actors").text
        charts = d.find_elements("css selector", "svg.chart")
        assert len(charts) >= 5
        assert all(c.is_displayed() and c.size["width"] > 100 and c.size["height"] > 20 for c in charts)
        trend = d.find_element("css selector", "#golden svg.chart polyline")  # two eval files: a line
        assert trend.is_displayed()
        timeline = d.find_elements("css selector", "#timeline svg.chart")  # work over time, by outcome
        assert len(timeline) == 2 and all(c.is_displayed() for c in timeline)
        stacks = d.find_elements("css selector", "#timeline svg.chart rect[data-series]")
        assert {s.get_attribute("data-series") for s in stacks} >= {"success", "failure"}
        assert d.find_element("css selector", "#timeline svg.chart polyline").is_displayed()  # the success share
        bars = d.find_elements("css selector", "#top svg.chart rect")
        assert len(bars) >= 3 and all(b.size["width"] >= 1 for b in bars)
        assert d.execute_script("return performance.getEntriesByType('resource').length") == 0  # self-contained
        shot = screenshot(d, "report")
    assert shot.stat().st_size > 20_000
    tl = json.loads(Path(doc["files"]["json"]).read_text(encoding="utf-8"))["marts"]["timeline"]
    assert tl["total"] == wh.sql("SELECT count(*) FROM ak_episode WHERE started_at IS NOT NULL")["rows"][0][0]
    assert len(stacks) == sum(1 for counts in tl["outcomes"].values() for c in counts if c)
    assert all(s is None or 0 <= s <= 1 for s in tl["share"])
    md = Path(doc["files"]["markdown"]).read_text(encoding="utf-8")
    assert "## Work over time" in md and f"| {tl['periods'][0]} |" in md
    assert "## Golden metrics" in md and "| dsh | sessions |" in md and title not in md


@pytest.mark.browser
def test_snippets_appear_only_when_configured(wh: Warehouse, history: Path, tmp_path: Path) -> None:
    title = _episode_title(wh)
    wh.config_set(["reports.snippets=true"])
    try:
        doc = wh.report(tmp_path, reports_dir=history)
    finally:
        wh.config_set(["reports.snippets=false"])
    with chrome() as d:
        d.get(Path(doc["files"]["html"]).as_uri())
        assert "with snippets" in d.find_element("id", "state").find_element("xpath", "..").text
        assert title in d.find_element("id", "episodes").text


def test_the_cli_writes_the_report(wh: Warehouse, history: Path, tmp_path: Path) -> None:
    env = {**os.environ, "AKW_HOME": str(wh.paths.home), "DSH_HOME": str(wh.paths.dsh_home),
           "AUTOCLAW_ROOT": str(wh.paths.autoclaw_root)}
    r = subprocess.run([str(AKW), "report", "--out", str(tmp_path), "--reports", str(history), "--json"], env=env,
                       capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["state"] == "ready" and Path(doc["files"]["html"]).is_file() and Path(doc["files"]["markdown"]).is_file()
    data = json.loads(Path(doc["files"]["json"]).read_text(encoding="utf-8"))
    assert [e["index_rev"] for e in data["history"]["eval"]] == ["ak-0000000000000001", "ak-0000000000000002"]


def test_without_eval_and_bench_reports_it_says_how_to_get_them(wh: Warehouse, tmp_path: Path) -> None:
    """A clean clone has no eval/bench files: the sections name the commands that make them, not blanks."""
    doc = wh.report(tmp_path / "out", reports_dir=tmp_path / "none")
    html = Path(doc["files"]["html"]).read_text(encoding="utf-8")
    md = Path(doc["files"]["markdown"]).read_text(encoding="utf-8")
    for text in (html, md):
        assert "akw eval --out" in text and "akw bench --scale 100k --out" in text
    assert 'id="golden-howto"' in html and 'id="bench-howto"' in html and 'id="timeline"' in html


def test_the_timeline_keeps_empty_periods_and_picks_its_unit() -> None:
    """A month of work is per day, a longer span per week (Mondays), a gap stays a zero period, and the success
    share counts a partial as half of the finished episodes."""
    from datetime import date

    from warehouse.reports.timeline import timeline

    days = timeline([{"day": date(2026, 9, 1), "outcome": "success", "episodes": 2},
                     {"day": date(2026, 9, 3), "outcome": "partial", "episodes": 1},
                     {"day": date(2026, 9, 3), "outcome": "failure", "episodes": 1}])
    assert days["unit"] == "day" and days["periods"] == ["2026-09-01", "2026-09-02", "2026-09-03"]
    assert days["outcomes"] == {"success": [2, 0, 0], "partial": [0, 0, 1], "failure": [0, 0, 1]}
    assert days["share"] == [1.0, None, 0.25] and days["total"] == 4
    weeks = timeline([{"day": date(2026, 9, 2), "outcome": "success", "episodes": 1},
                      {"day": date(2026, 11, 4), "outcome": "cancelled", "episodes": 3}])
    assert weeks["unit"] == "week" and weeks["periods"][0] == "2026-08-31" and weeks["periods"][-1] == "2026-11-02"
    assert len(weeks["periods"]) == 10 and sum(weeks["outcomes"]["cancelled"]) == 3 and weeks["share"][-1] == 0.0


def test_degradations_and_errors_are_reported(tmp_path: Path, history: Path) -> None:
    """A home with broken units: the report says degraded and lists each failed unit with its stable code."""
    Warehouse.generate_fixtures(tmp_path / "src", sessions=4, seed=5, broken=True)
    wh = Warehouse.open(tmp_path / "src" / "dsh", tmp_path / "src" / "autoclaw", tmp_path / "akw")
    wh.reindex()
    status = wh.status()
    assert status["state"] == "degraded" and status["errors"]
    doc = wh.report(tmp_path / "out", reports_dir=history)
    html = Path(doc["files"]["html"]).read_text(encoding="utf-8")
    md = Path(doc["files"]["markdown"]).read_text(encoding="utf-8")
    assert doc["state"] == "degraded" and "No degradations" not in html
    for e in status["errors"]:
        assert e["code"] in html and e["code"] in md
