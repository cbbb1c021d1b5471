"""Read AutoClaw conversation entries by id on demand (the episode card's full text), read-only.

The database is opened by the extractor's own strictly read-only opener (`sqlite_open.open_source`,
which never creates or touches side files) and the entry texts are pulled out by the same SQL
expressions the extractor uses (`tables.SPECS`), then redacted with the extract rules.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.redact import redact
from warehouse.core.settings import Settings
from warehouse.extract.autoclaw.job import DB_REL, POLICY
from warehouse.extract.autoclaw.sqlite_open import error_code, open_source, retry
from warehouse.extract.autoclaw.tables import SPECS, q

ENTRIES = next(s for s in SPECS if s.source == "neutral_session_entries")
_BATCH = 500


def account_db(autoclaw_root: Path, account: str) -> Path:
    return Path(autoclaw_root) / "accounts" / account / DB_REL


def read_entries(autoclaw_root: Path, settings: Settings, account: str, session_id: str,
                 entry_ids: list[str]) -> list[dict[str, Any]]:
    """The entries `entry_ids` of one session, in session_seq order (ids the source no longer has are absent)."""
    db = account_db(autoclaw_root, account)
    if not db.is_file():
        raise KnowledgeError(Code.SOURCE_UNAVAILABLE, "runtime.sqlite not found", account=account)
    names = [c.name for c in ENTRIES.cols]
    sql_cols = ", ".join(c.sql for c in ENTRIES.cols)

    def attempt() -> list[tuple[Any, ...]]:
        src = open_source(db, POLICY)
        try:
            rows: list[tuple[Any, ...]] = []
            for i in range(0, len(entry_ids), _BATCH):
                chunk = entry_ids[i:i + _BATCH]
                marks = ", ".join("?" * len(chunk))
                rows += src.conn.execute(
                    f"SELECT {sql_cols} FROM {q(ENTRIES.source)} WHERE {q('session_id')} = ? "
                    f"AND {q('entry_id')} IN ({marks})", [session_id, *chunk]).fetchall()
            return rows
        finally:
            src.close()

    try:
        rows = retry(POLICY, attempt)
    except sqlite3.Error as e:
        code = error_code(e)
        raise KnowledgeError(code, f"runtime.sqlite: {type(e).__name__}", account=account) from None
    out = []
    for r in rows:
        d = dict(zip(names, r, strict=True))
        if settings.redact_secrets:
            d.update({k: redact(v, settings.redact_pii) for k, v in d.items() if isinstance(v, str)})  # every column
        out.append(d)
    out.sort(key=lambda d: (d.get("session_seq") is None, d.get("session_seq") or 0, str(d.get("entry_id"))))
    return out
