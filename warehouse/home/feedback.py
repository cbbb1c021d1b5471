"""Feedback records (FR-9): "useful / not useful" on a result id, kept without any query or snippet text.

Like the outbox these are the warehouse's own records, not derived data: they live outside the
generations (`$AKW_HOME/feedback/feedback.jsonl`, 0600 in a 0700 folder), so a rebuild or a full
reindex keeps them, and `forget_items` (called by forget) removes every record that names an id.
A record holds ids, the verdict and the time only; a request id is kept only when it has the shape
of an id (no spaces), so no query text can hide in it.

The ranking reads one aggregate per id (`scores`): s = (useful - not useful) / (votes + 2), in
(-1, 1). Fusion multiplies an item's relevance by 1 + FEEDBACK_BOOST · s (docs/search.md "Feedback").
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.paths import Paths, file_signature

RECORD_SCHEMA = "akw.feedback/v1"
FEEDBACK_BOOST = 0.1  # the largest share feedback moves an item's relevance by, either way
# the id kinds a search response returns (docs/search.md "Ids") and the mart each names a row of
KINDS = {"actor": "actor", "episode": "episode", "memory": "memory", "chunk": "code", "skill": "skill"}
RESULT_ID = re.compile(r"(actor|episode|memory|chunk|skill):\S{1,1000}")
REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@/+-]{0,199}")


def folder(paths: Paths) -> Path:
    return paths.feedback_dir


def log_file(paths: Paths) -> Path:
    return paths.feedback_log


def kind_of(result_id: str) -> str:
    """The kind of a result id by its prefix; anything else is not a result id."""
    if not isinstance(result_id, str) or not RESULT_ID.fullmatch(result_id):
        raise KnowledgeError(Code.INVALID_REQUEST, "result_id: not a result id (actor:, episode:, memory:, chunk:, "
                             "skill: … as a search response returns)", field="result_id")
    return KINDS[result_id.split(":", 1)[0]]


def check_request_id(request_id: str | None) -> str | None:
    """A request id is an id (letters, digits, `._:@/+-`, at most 200), never free text."""
    if request_id is None:
        return None
    if not isinstance(request_id, str) or not REQUEST_ID.fullmatch(request_id):
        raise KnowledgeError(Code.INVALID_REQUEST, "request_id: letters, digits and ._:@/+- only, at most 200 "
                             "(the request_id of the search request)", field="request_id")
    return request_id


@contextmanager
def _locked(paths: Paths) -> Iterator[Path]:
    """One writer of the feedback folder at a time (an append and a forget's rewrite never interleave)."""
    d = folder(paths)
    d.mkdir(parents=True, exist_ok=True)
    os.chmod(d, 0o700)
    fd = os.open(paths.feedback_lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield log_file(paths)
    finally:
        os.close(fd)


def append(paths: Paths, result_id: str, useful: bool, request_id: str | None, chosen: str | None,
           at: datetime | None = None) -> dict[str, Any]:
    """Record one verdict; returns the record as stored."""
    at_s = (at or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    record: dict[str, Any] = {"schema": RECORD_SCHEMA, "result_id": result_id, "kind": kind_of(result_id),
                              "useful": bool(useful), "request_id": request_id, "chosen": chosen, "at": at_s}
    key = json.dumps([result_id, useful, request_id, chosen, at_s], ensure_ascii=False)
    record["feedback_id"] = "fb:" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]
    with _locked(paths) as f:
        fd = os.open(f, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as out:
            out.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
            out.flush()
            os.fsync(out.fileno())
    return record


def read_all(paths: Paths) -> list[dict[str, Any]]:
    """Every readable record, oldest first; a torn last line (a crash mid-write) is skipped."""
    return read_log(log_file(paths))


def read_log(file: Path) -> list[dict[str, Any]]:
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if isinstance(doc, dict) and doc.get("schema") == RECORD_SCHEMA and isinstance(doc.get("result_id"), str):
            out.append(doc)
    return out


def signature(file: Path) -> tuple[int, int, int] | None:
    """One stat tells a search engine whether to reload the aggregate (paths.file_signature)."""
    return file_signature(file)


def votes(records: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """id -> (useful, not useful). One verdict per (result, request): a repeat within a request
    replaces the earlier one; a chosen actor/skill counts as one useful vote per request."""
    latest: dict[tuple[str, str], bool] = {}
    for i, r in enumerate(records):
        req = r.get("request_id") or f"#{i}"  # without a request id every record is its own context
        latest[(r["result_id"], req)] = bool(r.get("useful"))
        if isinstance(r.get("chosen"), str):
            latest[(r["chosen"], req)] = True
    out: dict[str, tuple[int, int]] = {}
    for (ident, _req), useful in latest.items():
        u, n = out.get(ident, (0, 0))
        out[ident] = (u + useful, n + (not useful))
    return out


def scores(records: list[dict[str, Any]]) -> dict[str, float]:
    """id -> s in (-1, 1): (useful - not useful) / (votes + 2); bounded however many votes come in."""
    return {k: (u - n) / (u + n + 2) for k, (u, n) in votes(records).items() if u != n}


def fusion_key(result_id: str) -> str:
    """The key fusion matches a result id on: an episode/actor/chunk/skill id as is, a memory by its
    document key (`memory:autoclaw:<a>:<m>` is the document `mem:<a>:<m>`)."""
    if result_id.startswith("memory:autoclaw:"):
        return "mem:" + result_id[len("memory:autoclaw:"):]
    return result_id


def forget_items(paths: Paths, item_ids: set[str]) -> int:
    """Remove every record whose result or chosen id is in `item_ids`; returns how many were removed.

    The log is rewritten to a temporary file and renamed over the old one under the folder lock."""
    if not item_ids or not log_file(paths).exists():
        return 0
    with _locked(paths) as f:
        try:
            lines = f.read_text(encoding="utf-8").splitlines()
        except OSError:
            return 0
        keep, removed = [], 0
        for line in lines:
            try:
                doc = json.loads(line)
            except ValueError:
                continue  # a torn line holds nothing usable: drop it with the rewrite
            if isinstance(doc, dict) and (doc.get("result_id") in item_ids or doc.get("chosen") in item_ids):
                removed += 1
            else:
                keep.append(line)
        if removed:
            tmp = f.with_name(f".tmp-feedback-{os.getpid()}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write("".join(line + "\n" for line in keep))
                out.flush()
                os.fsync(out.fileno())
            tmp.replace(f)
        return removed
