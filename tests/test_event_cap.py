"""Stored event text is bounded: a head, a marker naming the rest and its source (session + seq).

One 5 MB event line used to add ~21 MB to a generation (lake, event mart, documents, index).
"""

from __future__ import annotations

import json
from pathlib import Path

import akw_fixtures
import zstandard

from warehouse.api import Warehouse
from warehouse.extract.dsh.parse import parse_log
from warehouse.extract.eventlog import TEXT_CAP

BIG = 5_000_000
SID = "session-cap"


def _log(*events: dict) -> bytes:
    head = {"type": "session", "version": 4, "id": SID, "cwd": "/w", "createdAt": 1_761_200_000_000}
    return b"".join(json.dumps(e).encode() + b"\n" for e in (head, *events))


def _ev(kind: str, seq: int, data: dict) -> dict:
    return {"type": kind, "seq": seq, "time": 1_761_200_000_000 + seq * 1000, "data": data}


def test_every_text_field_keeps_a_head_and_names_the_rest() -> None:
    secret = "sk_live_CANARYcap0123456789abcdef"
    text = "x" * (TEXT_CAP - 12) + " " + secret + " " + "y" * BIG  # the secret straddles the cut
    parsed = parse_log(SID, _log(
        _ev("user/message", 1, {"id": "m1", "content": [{"type": "text", "text": text}], "source": {"kind": "user"}}),
        _ev("tool/call", 2, {"callId": "c1", "name": "bash", "arguments": json.dumps({"command": text})}),
        _ev("tool/result", 3, {"callId": "c1", "name": "bash", "content": [{"type": "text", "text": text}]}),
        _ev("assistant/message", 4, {"turn": 1, "step": 1, "message": {"content": [
            {"type": "text", "text": text}, {"type": "reasoning", "text": text}]}})))
    seen = 0
    for e in parsed.events:
        for field in ("text", "reasoning", "arguments", "command"):
            v = e.get(field)
            if not v:
                continue
            seen += 1
            assert len(v) < TEXT_CAP + 200, (e["seq"], field)
            assert v.endswith(f"more chars in the source, session {SID} seq {e['seq']}]"), (e["seq"], field)
            assert "CANARYcap" not in v and "sk_live_" not in v  # no half secret left at the cut
    assert seen == 6  # user text, arguments, command, tool result, assistant text and reasoning


def test_one_huge_event_adds_little_to_the_generation(tmp_path: Path) -> None:
    src = tmp_path / "src"
    akw_fixtures.generate(src, sessions=6, seed=3)
    wh = Warehouse.open(src / "dsh", src / "autoclaw", tmp_path / "akw")
    assert wh.reindex()["outcome"] == "published"
    gens = wh.paths.generations

    def size() -> int:  # the newest generation
        return max(gens.rglob("*.duckdb"), key=lambda p: p.stat().st_mtime_ns).stat().st_size

    before = size()
    log = sorted((src / "dsh" / "sessions").glob("*/*/session.v4.jsonl.zstd"))[0]
    lines = zstandard.ZstdDecompressor().decompressobj().decompress(log.read_bytes()).decode().rstrip("\n").split("\n")
    last = json.loads(lines[-1])
    huge = _ev("user/message", last["seq"] + 1, {"id": "m-huge", "source": {"kind": "user"},  # a pasted log
                                                 "content": [{"type": "text", "text": "log line\n" * (BIG // 9)}]})
    huge["time"] = last["time"] + 1000
    log.write_bytes(log.read_bytes() + zstandard.ZstdCompressor().compress(json.dumps(huge).encode() + b"\n"))
    assert wh.reindex()["outcome"] == "published"
    assert size() - before < 1_000_000  # was ~21 MB
