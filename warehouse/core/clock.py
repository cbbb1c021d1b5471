"""The run clock: wall-clock UTC, or `AKW_NOW` (ISO 8601) so tests and replays can pin "now".

Retention (`retention_days`) is measured against it: generated fixtures have fixed dates, and a
test that needs them inside (or outside) the window says so with `AKW_NOW` instead of hoping.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

from warehouse.core.errors import Code, KnowledgeError

ENV = "AKW_NOW"


def now() -> datetime:
    raw = os.environ.get(ENV)
    if not raw:
        return datetime.now(UTC)
    try:
        dt = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise KnowledgeError(Code.CONFIG_INVALID, f"{ENV}: not an ISO 8601 timestamp", key=ENV) from None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)
