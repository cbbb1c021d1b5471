"""Run the checks with great-expectations and write the validation result (reports/quality-<index_rev>.json)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from warehouse.core.errors import Code, KnowledgeError
from warehouse.quality.checks import Check, checks
from warehouse.quality.frames import read_frames

SCHEMA = "akw.quality/v1"
EXAMPLES = 5  # keys (ids, never text) shown per failed check


def _gx() -> Any:
    """great_expectations, imported on use; no usage statistics leave the machine. Missing (a core install
    without the [quality] extra): a coded error that names the extra."""
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
    try:
        import great_expectations as gx
    except ImportError:
        raise KnowledgeError(Code.INVALID_REQUEST, "akw quality needs the [quality] extra (great-expectations): "
                             "pip install 'agent-knowledge-warehouse[quality]'", extra="quality") from None

    return gx


def _validate(gx: Any, ctx: Any, frame: str, df: Any, checks: list[Check]) -> list[dict[str, Any]]:
    asset = ctx.data_sources.get("akw").add_dataframe_asset(name=frame)
    batch = asset.add_batch_definition_whole_dataframe("all").get_batch(batch_parameters={"dataframe": df})
    suite = gx.ExpectationSuite(name=f"akw-{frame}")
    for c in checks:
        suite.add_expectation(getattr(gx.expectations, c.expectation)(**c.kwargs, meta={"check": c.name}))
    out = []
    for r in batch.validate(suite, result_format="SUMMARY").results:
        name = r.expectation_config.meta["check"]
        check = next(c for c in checks if c.name == name)
        res = r.result or {}
        rows = res.get("partial_unexpected_index_list") or []
        keys = [str(df["key"].iloc[i]) for i in rows[:EXAMPLES]] if "key" in df.columns else []
        out.append({"check": name, "kind": check.kind, "frame": frame, "expectation": r.expectation_config.type,
                    "success": bool(r.success), "element_count": res.get("element_count", len(df)),
                    "unexpected_count": res.get("unexpected_count", 0 if r.success else None),
                    "examples": keys})
    return out


def run_quality(db_path: Path, out_dir: Path | None = None, index_rev: str | None = None,
                log: Callable[[str], None] | None = None, lake: Path | None = None) -> dict[str, Any]:
    """Validate one generation file (and the home's `lake` when given); the document says `success` and names
    every failed check."""
    gx = _gx()  # first: the frames are pandas, which only the [quality] extra brings
    frames = read_frames(db_path, lake)
    ctx = gx.get_context(mode="ephemeral")
    ctx.variables.progress_bars = {"globally": False, "metric_calculations": False}
    ctx.data_sources.add_pandas("akw")
    results: list[dict[str, Any]] = []
    every = checks()
    for frame in dict.fromkeys(c.frame for c in every):
        if log:
            log(f"validating {frame} ({len(frames[frame])} rows)")
        results += _validate(gx, ctx, frame, frames[frame], [c for c in every if c.frame == frame])
    failed = [r["check"] for r in results if not r["success"]]
    doc = {"schema": SCHEMA, "index_rev": index_rev, "generation": db_path.name,
           "validated_at": datetime.now(UTC).isoformat(timespec="seconds"),
           "great_expectations": gx.__version__, "success": not failed, "failed": failed,
           "statistics": {"evaluated": len(results), "successful": len(results) - len(failed),
                          "unsuccessful": len(failed)},
           "rows": {name: len(df) for name, df in frames.items()}, "results": results}
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / f"quality-{index_rev or db_path.stem}.json"
        path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        doc["report"] = str(path)
    return doc
