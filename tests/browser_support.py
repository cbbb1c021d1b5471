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
