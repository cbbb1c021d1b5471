"""Read one DSH session's events from its log on demand (the episode card's full text), read-only.

The log is opened "rb" and parsed by the extractor's own parser (`parse.parse_log`), so replayed
parent history, duplicates and excluded files are handled exactly as when indexing, and every text
goes through the same redaction rules (`warehouse.core.redact`) when `redact_secrets` is on. Nothing is
written anywhere. A log that is gone or unreadable is `KNOWLEDGE_SOURCE_UNAVAILABLE` /
`KNOWLEDGE_SOURCE_CORRUPT`; the caller still has what the index holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.redact import redact
from warehouse.core.settings import Settings
from warehouse.extract.base import path_excluded, read_regular
from warehouse.extract.dsh.job import LOG_NAME
from warehouse.extract.dsh.parse import CorruptLog, decode, parse_log


@dataclass(frozen=True)
class SessionEvents:
    path: Path
    events: list[dict[str, Any]]  # parse_log rows, `time` in epoch ms, texts redacted


def session_log(dsh_home: Path, session_id: str, rel_path: str | None = None) -> Path:
    """The log file of a session: the indexed relative path if it still holds, else a lookup by id."""
    home = Path(dsh_home)
    if rel_path:
        cand = (home / rel_path).resolve()
        if cand.is_relative_to(home.resolve()) and cand.is_file():
            return cand
    for p in sorted((home / "sessions").glob(f"*/{session_id}/{LOG_NAME}")) if (home / "sessions").is_dir() else []:
        return p
    raise KnowledgeError(Code.SOURCE_UNAVAILABLE, "the session log is no longer in the DSH home",
                         session_id=session_id)


def read_session_events(dsh_home: Path, settings: Settings, session_id: str, seq_first: int | None = None,
                        seq_last: int | None = None, rel_path: str | None = None) -> SessionEvents:
    """Events of `session_id` with seq in [seq_first, seq_last] (either bound open), in seq order."""
    path = session_log(dsh_home, session_id, rel_path)
    try:
        raw = read_regular(path)  # a FIFO in its place must not hang a card
    except OSError as e:
        raise KnowledgeError(Code.SOURCE_UNAVAILABLE, f"session log unreadable ({e.strerror or e})",
                             session_id=session_id) from None
    try:
        parsed = parse_log(session_id, decode(raw), lambda p: path_excluded(settings, p), capped=False)
    except CorruptLog:
        raise KnowledgeError(Code.SOURCE_CORRUPT, "session log is not a readable zstd stream",
                             session_id=session_id) from None
    out = []
    for ev in parsed.events:
        seq = ev.get("seq")
        if seq is None or (seq_first is not None and seq < seq_first) or (seq_last is not None and seq > seq_last):
            continue
        if settings.redact_secrets:
            ev = {k: redact(v, settings.redact_pii) if isinstance(v, str) else v for k, v in ev.items()}  # every field
        out.append(ev)
    out.sort(key=lambda e: (e["seq"], e["line_no"]))
    return SessionEvents(path, out)
