"""Headless Chromium from Debian's packages, driven by Selenium, for the browser tests (marker `browser`).

No browser is ever downloaded: the executable and the driver are /usr/bin/chromium and /usr/bin/chromedriver
(`.ci/run` installs them). Outside CI a machine without them skips with the reason; in CI (`CI=true`) a
missing browser is a failure.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "reports" / "screenshots"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,1600", "--lang=en-US")


def _binaries() -> tuple[str | None, str | None]:
    return (shutil.which("chromium") or shutil.which("chromium-browser"), shutil.which("chromedriver"))


def require_browser() -> tuple[str, str]:
    """The browser and its driver, else a skip (outside CI) or a failure (in CI)."""
    browser, driver = _binaries()
    missing = [n for n, p in (("chromium", browser), ("chromedriver", driver)) if p is None]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip)")
    if missing:
        reason = f"browser tests need {', '.join(missing)} (apt-get install chromium chromium-driver; .ci/run does)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(reason)
        pytest.skip(reason)
    assert browser and driver
    return browser, driver


@contextmanager
def chrome() -> Iterator[Any]:
    """A fresh headless Chromium (its own profile folder), closed afterwards."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = require_browser()
    profile = tempfile.mkdtemp(prefix="akw-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for f in (*FLAGS, f"--user-data-dir={profile}"):
        opts.add_argument(f)
    d = webdriver.Chrome(service=Service(executable_path=driver), options=opts)
    d.set_page_load_timeout(60)
    try:
        yield d
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


def screenshot(driver: Any, name: str, element: Any = None) -> Path:
    """Save reports/screenshots/<name>.png: the whole page (the window grown to its height), or the viewport
    scrolled to `element` (marimo scrolls inside its own container)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    if element is not None:
        driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", element)
    else:
        height = driver.execute_script("return Math.max(document.body.scrollHeight, 800)")
        driver.set_window_size(1280, min(int(height) + 40, 6000))
    path = SCREENSHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


# -- marimo apps: a server of our own on a loopback port, and its widgets (custom elements with shadow roots) ---
def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def marimo_app(notebook: Path | list[Path], env: dict[str, str]) -> Iterator[str]:
    """`marimo run <notebook>` headless on 127.0.0.1:<free port>; yields its URL; stops the server we started.
    Several notebooks are one server (marimo's gallery): each app is then `<url>?file=<its file name>`, so a
    test that only looks at apps pays for one server start, not one per app."""
    import subprocess
    import sys
    import time
    import urllib.request

    port = free_port()
    marimo = Path(sys.executable).with_name("marimo")
    url = f"http://127.0.0.1:{port}/"
    with tempfile.TemporaryFile() as log:
        notebooks = [str(n) for n in (notebook if isinstance(notebook, list) else [notebook])]
        proc = subprocess.Popen([str(marimo), "-q", "run", *notebooks, "--headless", "--host", "127.0.0.1",
                                 "-p", str(port), "--no-token"], env={**os.environ, **env}, stdout=log,
                                stderr=log, cwd=ROOT)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen(url, timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise AssertionError(f"marimo run did not start: {log.read().decode(errors='replace')[-2000:]}")
                time.sleep(0.1)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


SLOW_WAIT_S = 15.0  # a wait this long passes but is named in the warnings summary: it once took 60 s in a run


def wait_for(cond: Any, timeout: float = 60, what: str = "condition") -> Any:
    import time
    import warnings

    start = time.monotonic()
    deadline = start + timeout
    while time.monotonic() < deadline:
        try:
            got = cond()
        except Exception:  # the page is re-rendering: try again
            got = None
        if got:
            waited = time.monotonic() - start
            if waited > SLOW_WAIT_S:
                warnings.warn(f"browser test waited {waited:.1f} s for {what}", stacklevel=2)
            return got
        time.sleep(0.1)  # a page re-renders in tens of ms: a coarser poll only adds idle time to each wait
    raise AssertionError(f"timed out waiting for {what}")


def page_text(driver: Any) -> str:
    return driver.execute_script("return document.body.innerText")


_DEEP = """const parts = []; const walk = (root) => { for (const el of root.querySelectorAll('*')) {
  if (el.shadowRoot) { parts.push(el.shadowRoot.textContent || ''); walk(el.shadowRoot); } } };
  walk(document); return [document.body.innerText, ...parts].join('\\n');"""
_CANVASES = """let n = 0; const walk = (root) => { for (const el of root.querySelectorAll('*')) {
  if (el.tagName === 'CANVAS' && el.width > 0 && el.height > 0) n++; if (el.shadowRoot) walk(el.shadowRoot); } };
  walk(document); return n;"""


def deep_text(driver: Any) -> str:
    """The page's text including what marimo's widgets (tables, selects) keep inside their shadow roots."""
    return driver.execute_script(_DEEP)


def drawn_charts(driver: Any) -> int:
    """How many charts have been drawn: Vega canvases with a size (a chart still loading has none)."""
    return int(driver.execute_script(_CANVASES))


def buttons(driver: Any, label: str) -> list[Any]:
    """The visible <button>s inside marimo button widgets whose text contains `label`."""
    out = []
    for el in driver.find_elements("css selector", "marimo-button"):
        inner = el.shadow_root.find_elements("css selector", "button")
        if inner and label in inner[0].text:
            out.append(inner[0])
    return out


def text_input(driver: Any, index: int = 0) -> Any:
    return driver.find_elements("css selector", "marimo-text")[index].shadow_root.find_element("css selector", "input")


def choose(driver: Any, label: str) -> None:
    """Click the radio option `label` in whichever marimo radio group has it."""
    for el in driver.find_elements("css selector", "marimo-radio"):
        for opt in el.shadow_root.find_elements("css selector", "label"):
            if opt.text.strip() == label:
                click(driver, opt)
                return
    raise AssertionError(f"no radio option {label!r}")


def click(driver: Any, element: Any) -> None:
    """Scroll `element` to the middle of the view, then click it as a person would."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()
