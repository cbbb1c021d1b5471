"""Append one valid event to a DSH session log, as the harness does: one new zstd frame.

Used only on the bench's own copy of generated data (never on a source). A file whose last
line is truncated (a live session) is not a target: appending after a cut line would glue
the new event to it, which the harness never does.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import zstandard

SESSION_FILE = "session.v4.jsonl.zstd"


def _lines(path: Path) -> tuple[list[str], bool]:
    """Decoded lines of every frame and whether the text ends with a newline."""
    with open(path, "rb") as f:
        reader = zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True)
        text = io.TextIOWrapper(reader, encoding="utf-8").read()
    return text.splitlines(), text.endswith("\n")


def pick_session(dsh_home: Path) -> Path:
    """The first session file (sorted path) that ends cleanly and has events: deterministic."""
    for path in sorted(Path(dsh_home, "sessions").rglob(SESSION_FILE)):
        lines, clean = _lines(path)
        if clean and len(lines) > 1:
            return path
    raise FileNotFoundError(f"no cleanly ending session file under {dsh_home}/sessions")


def append_event(path: Path, tag: str) -> dict:
    """Append an assistant message with the next seq/time and a fresh turn; return the event."""
    lines, clean = _lines(path)
    if not clean:
        raise ValueError(f"{path} ends in a truncated line")
    events = [json.loads(x) for x in lines[1:] if x.strip()]
    last_seq = max(e["seq"] for e in events)
    last_time = max(e["time"] for e in events)
    turn = 1 + max((e["data"].get("turn", 0) for e in events if e["type"] == "assistant/message"), default=0)
    event = {"type": "assistant/message", "seq": last_seq + 1, "time": last_time + 1000,
             "data": {"turn": turn, "step": 1, "model": "bench",
                      "message": {"content": [{"type": "text", "text": f"bench probe {tag}: nothing changed"}]},
                      "usage": {"input_tokens": 1, "output_tokens": 1}, "finishReason": "stop"}}
    frame = zstandard.ZstdCompressor(level=3, write_checksum=True).compress(
        (json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))
    with open(path, "ab") as f:
        f.write(frame)
    return event
