"""A non-editable install carries everything the product needs: the SQL ships as package data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_installed_package_runs_the_demo_outside_the_repository(tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(ROOT)],
                   check=True, capture_output=True, text=True)
    installed_sql = sorted(p.name for p in (site / "warehouse" / "sql").iterdir() if p.name != "__pycache__")
    assert installed_sql == ["__init__.py", "build", "models", "queries"]
    assert (site / "akw_fixtures" / "catalogue.py").is_file()
    # the shipped word lists search reads (common English words, the Russian → English lexicon)
    assert {p.name for p in (site / "warehouse" / "search" / "data").iterdir()} >= {"common_en.txt", "ru_en.tsv"}
    run = tmp_path / "elsewhere"
    run.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    code = ("import sys, warehouse; from warehouse.cli import app; "
            "assert warehouse.__file__.startswith(sys.argv[1]), warehouse.__file__; "
            "sys.argv = ['akw', 'demo', '--out', 'demo', '--json']; app()")
    out = subprocess.run([sys.executable, "-c", code, str(site)], cwd=run, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    doc = json.loads(out.stdout)
    journeys = {j["id"]: j for j in doc["journeys"]}
    assert journeys["UJ-5"]["result"]["state"] == "ready"
    assert doc["reindex"]["outcome"] == "published"
    assert all(j["result"]["found"] for j in doc["journeys"] if j["kind"] == "search")
    assert journeys["UJ-2"]["result"]["task_answer"]["applicability"]
