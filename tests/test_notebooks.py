"""The marimo apps in notebooks/: each is a plain .py that runs as a script, `marimo export html` of the eval and
bench notebooks works headless, and the Search and Settings apps work in a real headless Chromium."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    ROOT,
    buttons,
    choose,
    chrome,
    click,
    deep_text,
    drawn_charts,
    marimo_app,
    page_text,
    screenshot,
    text_input,
    wait_for,
)
from homes import BuiltHome
from report_samples import write_history
from selenium.webdriver.common.keys import Keys

from warehouse import ui
from warehouse.api import Warehouse
from warehouse.core.settings import Settings
from warehouse.home.runs import read_runs

NOTEBOOKS = ROOT / "notebooks"
APPS = ("search", "settings", "eval", "bench", "explore")
MARIMO = Path(sys.executable).with_name("marimo")


@pytest.fixture(scope="module")
def wh(small: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return small.copy(tmp_path_factory.mktemp("notebooks"))


@pytest.fixture(scope="module")
def env(wh: Warehouse, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return {"AKW_HOME": str(wh.paths.home), "DSH_HOME": str(wh.paths.dsh_home),
            "AUTOCLAW_ROOT": str(wh.paths.autoclaw_root),
            "AKW_REPORTS": str(write_history(tmp_path_factory.mktemp("history")))}


@pytest.fixture(scope="module")
def gallery(env: dict[str, str]) -> Iterator[str]:
    """Every app on one `marimo run` server (its gallery: `<url>?file=<app>.py`, a fresh kernel per page load):
    the browser tests pay for one server start, not one per app."""
    with marimo_app([NOTEBOOKS / f"{name}.py" for name in APPS], env) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module's browser tests; each test starts on its own page and window size."""
    with chrome() as d:
        yield d


def _open(d: Any, gallery: str, app: str) -> None:
    d.set_window_size(1280, 1600)  # a screenshot of a whole page grows the window: start each app the same
    d.get(f"{gallery}?file={app}.py")


@pytest.mark.parametrize("name", APPS)
def test_apps_use_only_the_api(name: str) -> None:
    """The apps are thin: they import the Warehouse API, its error type and the UI text — never SQL files,
    generations or other internals."""
    import ast

    tree = ast.parse((NOTEBOOKS / f"{name}.py").read_text(encoding="utf-8"))
    froms = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    ours = {n.module for n in froms if (n.module or "").startswith("warehouse")}
    ours |= {f"warehouse.{a.name}" for n in froms if n.module == "warehouse" for a in n.names}
    ours |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
             if a.name.startswith("warehouse")}
    assert ours - {"warehouse"} <= {"warehouse.api", "warehouse.core.errors", "warehouse.ui"}, ours
    assert "duckdb" not in (NOTEBOOKS / f"{name}.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", APPS)
def test_each_app_runs_as_a_script(name: str, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every cell runs without an error (marimo raises the first one) and defines what the layout uses."""
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    app = runpy.run_path(str(NOTEBOOKS / f"{name}.py"))["app"]
    _outputs, defs = app.run()
    assert "lang_pick" in defs or "lang" in defs


@pytest.mark.parametrize("name", ["search", "settings"])
def test_a_disabled_warehouse_is_shown_honestly(name: str, wh: Warehouse, env: dict[str, str], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    home = tmp_path / "akw"
    shutil.copytree(wh.paths.home, home)
    Warehouse.open(wh.paths.dsh_home, wh.paths.autoclaw_root, home).config_set(["enabled=false"])
    for k, v in {**env, "AKW_HOME": str(home)}.items():
        monkeypatch.setenv(k, v)
    outputs, defs = runpy.run_path(str(NOTEBOOKS / f"{name}.py"))["app"].run()
    assert defs["st"]["state"] == "disabled"
    shown = " ".join(getattr(o, "text", "") or "" for o in outputs if o is not None)
    assert "Выключено" in shown and "включите" in shown


def _run_app(name: str, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], dict[str, Any]]:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return runpy.run_path(str(NOTEBOOKS / f"{name}.py"))["app"].run()


def test_bench_panels_carry_their_run_date_newest_first(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Each panel is named by when the run happened (the report's `finished_at`, else the file's time, marked
    so), newest on top, and every mode's row says its P50 and P95."""
    from report_samples import OLDER_BENCH_AT

    _outputs, defs = _run_app("bench", env, monkeypatch)
    labels = defs["labels"]
    assert [b["index_rev"] for b in defs["shown"]] == ["ak-0000000000000002", "ak-0000000000000001"]
    assert "(время файла)" in labels[0] and labels[1].startswith(OLDER_BENCH_AT[:16].replace("T", " ") + " · small")
    auto = [r for r in defs["rows"] if r["who"] == "ours · auto"]
    assert [r["p50_p95"] for r in auto] == ["P50 30.0 · P95 40.0 ms", "P50 40.0 · P95 50.0 ms"]
    assert all(r["run"] in labels for r in defs["rows"])


def test_explore_success_chart_stays_in_its_axes(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Actors by success: a share on [0, 1] (no stacking of two actors with one name past 1.0), one bar per
    actor, the legend under the plot."""
    _outputs, defs = _run_app("explore", env, monkeypatch)
    rows, err = defs["run"]((NOTEBOOKS / "queries" / "actors_by_success.sql").read_text(encoding="utf-8"))
    assert err is None and rows
    spec = defs["chart"]("actors_by_success", rows).to_dict()
    x = spec["encoding"]["x"]
    assert x["scale"]["domain"] == [0, 1] and x["stack"] is None and x["scale"]["clamp"] is True
    assert spec["encoding"]["color"]["legend"]["orient"] == "bottom"
    bars = spec["data"]["values"] if "values" in spec.get("data", {}) else next(iter(spec["datasets"].values()))
    assert len({b["actor"] for b in bars}) == len(rows)  # two "Ops SRE" are two bars
    assert all(0 <= b["success_rate"] <= 1 for b in bars)


def test_eval_without_reports_shows_the_command_not_backticks(env: dict[str, str], tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    outputs, _defs = _run_app("eval", {**env, "AKW_REPORTS": str(tmp_path)}, monkeypatch)
    shown = " ".join(getattr(o, "text", "") or "" for o in outputs if o is not None)
    assert "akw eval" in shown and "`akw eval`" not in shown


@pytest.mark.parametrize(("name", "expected"), [("eval", ["recall@3", "eval-ak-0000000000000002.json", "miss"]),
                                                ("bench", ["SQLite FTS5", "bench report"])])
def test_export_html_works_headless(name: str, expected: list[str], env: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / f"{name}.html"
    r = subprocess.run([str(MARIMO), "-q", "export", "html", str(NOTEBOOKS / f"{name}.py"), "-o", str(out)],
                       env={**os.environ, **env}, capture_output=True, text=True, timeout=300, check=False, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    html = out.read_text(encoding="utf-8")
    assert all(e in html for e in expected), [e for e in expected if e not in html]


@pytest.mark.browser
def test_search_skill_card_and_dry_run_dispatch_in_a_browser(wh: Warehouse, gallery: str, browser: Any) -> None:
    d = browser
    _open(d, gallery, "search")
    wait_for(lambda: "Активен" in page_text(d), what="the honest state")
    start = wait_for(lambda: d.find_element("id", "akw-start"), what="the start page before a query")
    newest = wh.sql("SELECT episode_id FROM ak_episode ORDER BY started_at DESC NULLS LAST, episode_id "
                    "LIMIT 1")["rows"][0][0]
    assert len(d.find_elements("css selector", "#akw-recent tr")) == 5
    assert len(d.find_elements("css selector", "#akw-actors tr")) >= 3
    screenshot(d, "search-start", start)
    click(d, buttons(d, "Открыть")[0])  # the newest episode's card, from the start page
    episode = wait_for(lambda: d.find_element("id", "episode-card"), what="the episode card")
    wait_for(lambda: newest in episode.text, what="the newest episode in its card")
    assert "Задача" in episode.text and "Фрагмент сессии" in episode.text

    example = buttons(d, "кто использовал")[0]  # an example query fills the box and runs
    asked = example.text
    click(d, example)
    wait_for(lambda: d.find_elements("css selector", ".akw-card"), what="the example's result cards")
    assert text_input(d).get_attribute("value") == asked
    evidence = d.find_elements("css selector", ".akw-card .akw-evidence")[0]
    evidence_id = evidence.text.strip()
    click(d, evidence.find_element("css selector", "marimo-button").shadow_root.find_element("css selector",
                                                                                              "button"))
    wait_for(lambda: evidence_id in d.find_element("id", f"{evidence.get_attribute('data-card')}-card").text,
             what="the evidence's card")
    screenshot(d, "search-evidence-card", d.find_element("id", f"{evidence.get_attribute('data-card')}-card"))

    box = text_input(d)
    box.clear()
    box.send_keys("кто восстанавливал доступ к mysql")
    box.send_keys(Keys.ENTER)

    def names() -> list[str]:
        return [c.find_element("css selector", ".akw-card-name").text
                for c in d.find_elements("css selector", ".akw-card")]

    wait_for(lambda: any("verify-admin" in n or "DB Guardian" in n for n in names()), what="the query's cards")
    cards = d.find_elements("css selector", ".akw-card")
    assert "Почему" in cards[0].text and "Доказательства" in cards[0].text
    screenshot(d, "search-agents", cards[0])

    choose(d, "Навыки")
    wait_for(lambda: buttons(d, "Карточка навыка"), what="skill results")
    skill_heads = [c.text.split("\n")[0] for c in d.find_elements("css selector", ".akw-card")]
    # a lane item shows the answer's match and its rank, not a lane score beside another lane's
    assert skill_heads and all("skills · skills" not in h and "релевантность" not in h for h in skill_heads)
    assert any("совпадение ответа" in h and "№1" in h for h in skill_heads), skill_heads
    click(d, buttons(d, "Карточка навыка")[0])
    card = wait_for(lambda: d.find_element("id", "skill-card"), what="the skill card")
    wait_for(lambda: "mysql-access-restore" in card.text, what="the skill card text")
    assert "Когда применять" in card.text and "История использования" in card.text
    assert "scripts/check_grants.sh" in card.text  # its resources
    assert "<untrusted-data" not in d.page_source.split("skill-card", 1)[1][:20000]
    screenshot(d, "skill-card", card)

    click(d, buttons(d, "Передать задачу")[0])
    dialog = wait_for(lambda: d.find_element("id", "dispatch-dialog"), what="the dispatch dialog")
    wait_for(lambda: "пробный план" in dialog.text, what="the dry-run plan")
    assert "dry_run" in dialog.text and "ничего не записано" in dialog.text
    assert "Исполнитель" in dialog.text and "Контекстный пакет" in dialog.text
    assert "mysql-access-restore" in dialog.text  # the skill card's hand-over names its skill
    assert buttons(d, "Записать передачу")  # commit needs the explicit confirmation and this button
    screenshot(d, "dispatch-dry-run", dialog)
    assert wh.dispatch_list().get("assignments", []) == []  # a dry run records nothing

    choose(d, "EN")
    wait_for(lambda: "Search the agents' knowledge" in page_text(d), what="the English interface")
    assert "Active" in page_text(d)
    box = text_input(d)
    box.send_keys("zzqx vbnmw qqqzz")
    box.send_keys(Keys.ENTER)
    empty = wait_for(lambda: d.find_element("id", "akw-empty"), what="the empty state")
    assert "Nothing found" in empty.text and "What to do" in page_text(d)
    screenshot(d, "search-empty-en", empty)


def test_without_a_browser_the_tests_skip_outside_ci_and_fail_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    import browser_support

    monkeypatch.setattr(browser_support.shutil, "which", lambda _name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium chromium-driver"):
        browser_support.require_browser()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="chromium"):
        browser_support.require_browser()


@pytest.mark.browser
def test_settings_and_status_in_a_browser(wh: Warehouse, gallery: str, browser: Any) -> None:
    from warehouse.core.background import WRITER
    from warehouse.home import usage

    wh.search_text("restore mysql access")  # counted by the usage metrics the page shows (FR-9) …
    usage.submit()  # … and written, as this process would at exit: the app's server is already up and reads it now
    WRITER.flush(5.0)
    d = browser
    _open(d, gallery, "settings")
    wait_for(lambda: "Настройки и состояние" in page_text(d), what="the settings page")
    state = d.find_element("id", "akw-state").text
    assert state == "Активен"
    outcome = read_runs(wh.paths)[-1]["outcome"]  # the last run's outcome in words of the page, not as stored
    assert f"Последний запуск: {ui.value_text(outcome, 'ru')}" in page_text(d) and outcome not in page_text(d)
    used = d.find_element("id", "akw-usage").text
    assert "api" in used and "пустых" in used and "P95" in used
    sources = wait_for(lambda: d.find_element("id", "akw-sources"), what="the sources table")
    assert "autoclaw" in sources.text and "только чтение" in sources.text
    assert buttons(d, "Переиндексировать") and buttons(d, "Полная пересборка")
    screenshot(d, "settings-status")

    times = text_input(d, 0)  # a change goes through Warehouse.config_set, like `akw config set`
    times.clear()
    times.send_keys("04:00, 16:00")
    times.send_keys(Keys.ENTER)
    click(d, buttons(d, "Сохранить")[0])
    wait_for(lambda: Settings.load(wh.paths.config_file).schedule.times == ["04:00", "16:00"],
             what="the schedule saved to config.yaml")
    schedule = wait_for(lambda: d.find_element("id", "akw-schedule"), what="the schedule table")
    wait_for(lambda: "04:00, 16:00" in schedule.text, what="the saved times in the schedule table")
    assert "Ближайшие запуски" in schedule.text and "04:00" in schedule.text.split("Ближайшие запуски")[1]
    assert '"next_runs"' not in page_text(d)  # a table, not the raw JSON tree
    screenshot(d, "settings-schedule", schedule)

    runs = len(read_runs(wh.paths))
    click(d, buttons(d, "Переиндексировать")[0])  # an action runs the same Warehouse.reindex as `akw reindex`
    wait_for(lambda: len(read_runs(wh.paths)) > runs and read_runs(wh.paths)[-1].get("outcome") in
             ("noop", "published"), timeout=120, what="a reindex run from the app")


@pytest.mark.browser
def test_bench_explore_and_eval_in_a_browser(gallery: str, browser: Any) -> None:
    """The three read-only apps on one gallery server, each looked at and photographed: bench panels named by
    their run's date, newest first, with P50/P95 per mode and every chart drawn; Explore's three charts drawn
    over the marts with no query error; the eval report's figures without markdown backticks."""
    from report_samples import OLDER_BENCH_AT

    d = browser
    _open(d, gallery, "bench")
    wait_for(lambda: "P95 ms" in deep_text(d) and drawn_charts(d) >= 4, what="the bench table and charts")
    text = deep_text(d)
    older = OLDER_BENCH_AT[:16].replace("T", " ")
    assert "(время файла)" in text and older in text
    assert text.index("(время файла)") < text.index(older)  # the newest run on top
    assert "Loading chart" not in page_text(d)
    screenshot(d, "bench")

    _open(d, gallery, "explore")
    wait_for(lambda: drawn_charts(d) >= 3, what="the explore charts")
    text = deep_text(d)
    assert "KNOWLEDGE_" not in text  # no canned query failed
    assert all(h in text for h in ("actors by success", "episodes per workspace", "skill usage over time"))
    screenshot(d, "explore")

    _open(d, gallery, "eval")
    wait_for(lambda: "recall@3" in deep_text(d) and drawn_charts(d) >= 2, what="the eval report and charts")
    shown, text = page_text(d), deep_text(d)
    assert "eval-ak-0000000000000002.json" in text and "`" not in shown
    assert "0.81" in text and "0.8099" not in text  # figures rounded, not float noise
    assert d.find_elements("css selector", "#eval-queries tr") and not d.find_elements(
        "css selector", "#eval-queries tr.miss")  # its one query hit (recall@3 is under `metrics`)
    screenshot(d, "eval")
