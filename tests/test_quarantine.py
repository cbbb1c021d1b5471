"""A unit whose lake data no model can build is left out of the generation, not the whole build (issue 27:
one broken session never stops the others): the rest publishes, the unit is a coded per-unit error in
`akw status` and `akw sources`, and a full reindex reads it again."""

from __future__ import annotations

import math
from pathlib import Path

import cli_run
import pyarrow as pa
import pyarrow.parquet as pq
from homes import BuiltHome, env_of

from warehouse.api import Warehouse
from warehouse.indexing import quarantine, transform


def _rows(wh: Warehouse, sql: str) -> list[list]:
    return wh.sql(sql, limit=100000)["rows"]


def _unpublish(wh: Warehouse) -> None:
    """No published generation: the next incremental run builds from the lake as it is (nothing re-extracted)."""
    for f in wh.paths.generations.iterdir():
        if f.is_file():
            f.unlink()


def test_a_torn_lake_file_leaves_its_unit_out_and_the_rest_publishes(small: BuiltHome, tmp_path: Path) -> None:
    wh = small.copy(tmp_path / "akw")
    sessions = {s for (s,) in _rows(wh, "SELECT DISTINCT session_id FROM stg_dsh_events")}
    events = sorted((wh.paths.lake / "bronze" / "dsh" / "events").glob("session-*.parquet"))
    torn = events[len(events) // 2]  # a unit in the middle: the search has to halve both ways
    torn.write_bytes(b"PAR1" + b"\x00" * 64)  # a torn file: no model can read it
    _unpublish(wh)

    run = wh.reindex()
    assert run["outcome"] == "published"
    [left] = run["build"]["quarantined"]
    assert (left["source"], left["unit"]) == ("dsh", torn.stem) and left["model"].startswith("stg_dsh_")
    [err] = [e for e in run["errors"] if e["code"] == "KNOWLEDGE_SOURCE_CORRUPT"]
    assert (err["source"], err["unit"]) == ("dsh", torn.stem) and "--mode full" in err["message"]
    kept = {s for (s,) in _rows(wh, "SELECT DISTINCT session_id FROM stg_dsh_events")}
    assert len(kept) == len(sessions) - 1 and kept < sessions  # every other session's events are indexed
    assert _rows(wh, "SELECT count(*) FROM ak_document WHERE session_id IS NOT NULL")[0][0] > 0

    st = wh.status()
    assert st["state"] == "degraded" and any(e["unit"] == torn.stem for e in st["errors"])
    assert "left out of the index" in st["reason"] and "--mode full" in st["fix"]
    src = wh.sources()
    assert [(q["source"], q["unit"]) for q in src["quarantined"]] == [("dsh", torn.stem)]
    assert src["sources"]["dsh"]["quarantined"] == 1
    text = cli_run.run("sources", env=env_of(wh)).stdout  # the text form names it too
    assert "KNOWLEDGE_SOURCE_CORRUPT" in text and torn.stem in " ".join(text.split())

    again = wh.reindex()  # the same input: the same generation, and the status keeps saying what is missing
    assert again["outcome"] == "noop" and again["index_rev"] == run["index_rev"]
    assert wh.status()["state"] == "degraded"

    healed = wh.reindex(mode="full")  # reads every source again: the unit's files are written anew
    assert healed["outcome"] == "published" and "quarantined" not in healed["build"]
    assert {s for (s,) in _rows(wh, "SELECT DISTINCT session_id FROM stg_dsh_events")} == sessions
    assert wh.status()["state"] == "ready" and wh.sources()["quarantined"] == []


def _set_column(path: Path, column: str, value: str) -> None:
    t = pq.read_table(path)
    i = t.schema.get_field_index(column)
    t = t.set_column(i, t.schema.field(i), pa.array([value] * len(t), type=t.schema.field(i).type))
    pq.write_table(t, path, compression="zstd")


def test_a_role_or_status_no_model_accepts_leaves_its_unit_out(small: BuiltHome, tmp_path: Path) -> None:
    """A value outside a model's accepted values (`-- accepted_values:` headers) in one unit's lake files —
    a DSH session whose events all have a role the models do not know, a skill with a status no model
    accepts — breaks a declared constraint: those two units are left out with the constraint named, the
    rest publishes (before, the constraint gate failed the whole build)."""
    wh = small.copy(tmp_path / "akw")
    sessions = {s for (s,) in _rows(wh, "SELECT DISTINCT session_id FROM ak_event WHERE source = 'harness'")}
    events = sorted((wh.paths.lake / "bronze" / "dsh" / "events").glob("session-*.parquet"))
    skills = sorted(f for f in (wh.paths.lake / "bronze" / "skills" / "skills").glob("*.parquet")
                    if f.name != "_schema.parquet")
    bad_session, bad_skill = events[-1], skills[len(skills) // 2]
    n_skills = _rows(wh, "SELECT count(*) FROM ak_skill")[0][0]
    _set_column(bad_session, "role", "critic")
    _set_column(bad_skill, "status", "zombie")
    _unpublish(wh)

    run = wh.reindex()
    assert run["outcome"] == "published"
    left = {(q["source"], q["unit"]): q for q in run["build"]["quarantined"]}
    assert set(left) == {("dsh", bad_session.stem), ("skills", bad_skill.stem)}
    assert left[("dsh", bad_session.stem)]["model"] == "ak_event"
    assert "ak_event.accepted_values(role)" in left[("dsh", bad_session.stem)]["error"]
    assert "accepted_values(status)" in left[("skills", bad_skill.stem)]["error"]
    kept = {s for (s,) in _rows(wh, "SELECT DISTINCT session_id FROM ak_event WHERE source = 'harness'")}
    assert len(kept) == len(sessions) - 1 and kept < sessions
    assert 0 < _rows(wh, "SELECT count(*) FROM ak_skill")[0][0] == n_skills - pq.read_metadata(bad_skill).num_rows
    st = wh.status()
    assert st["state"] == "degraded" and {bad_session.stem, bad_skill.stem} <= {e["unit"] for e in st["errors"]}


def test_the_search_finds_one_bad_unit_and_none_when_only_units_together_fail() -> None:
    units = [quarantine.Unit("dsh", f"s{i:02d}") for i in range(13)]

    def fails_with(bad: set[str]):
        calls: list[int] = []

        def fails(keep) -> bool:
            kept = {u.stem for u in units if keep(Path(f"/lake/bronze/{u.source}/events/{u.stem}.parquet"))}
            calls.append(len(kept))
            return bad <= kept if len(bad) > 1 else bool(bad & kept)
        return fails, calls

    fails, calls = fails_with({"s09"})
    assert quarantine.find_bad_unit(units, fails) == quarantine.Unit("dsh", "s09")
    assert sum(calls) <= 2 * len(units)  # about one build's worth of data in all the probes together
    assert len(calls) <= 2 + math.ceil(math.log2(len(units)))  # none, one per halving, the last one alone
    fails, _ = fails_with({"s02", "s11"})  # two units that clash: not one unit's data, the build fails as before
    assert quarantine.find_bad_unit(units, fails) is None
    # a model that fails on any data, with no unit at all too: no unit is to blame
    assert quarantine.find_bad_unit(units, lambda keep: True) is None


def test_a_probe_builds_only_the_failing_model_and_the_models_and_sources_it_reads() -> None:
    """The search for a bad unit rebuilds the failing model's part of the build, from the units of the
    sources that part reads: a skill's status breaks a staging model of skills, whose probes read no session."""
    models = transform.discover()
    need = transform.upstream(models, "ak_event")
    assert "ak_event" in need and models["ak_event"].deps <= need and "ak_document" not in need
    assert all(models[n].deps <= need for n in need)
    assert transform.lake_sources(models, transform.upstream(models, "stg_skills")) == {"skills"}
    assert "skills" not in transform.lake_sources(models, need)
