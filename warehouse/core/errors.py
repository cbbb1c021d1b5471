"""Stable `KNOWLEDGE_*` error codes (spec 001 §8.2, contract 000 §9) and the one exception type."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum

from pydantic_core import PydanticSerializationError


class Code(StrEnum):
    DISABLED = "KNOWLEDGE_DISABLED"
    NOT_READY = "KNOWLEDGE_NOT_READY"
    INDEX_NOT_READY = "KNOWLEDGE_INDEX_NOT_READY"
    STALE_INDEX = "KNOWLEDGE_STALE_INDEX"
    SOURCE_UNAVAILABLE = "KNOWLEDGE_SOURCE_UNAVAILABLE"
    SOURCE_SCHEMA_UNSUPPORTED = "KNOWLEDGE_SOURCE_SCHEMA_UNSUPPORTED"
    SOURCE_CORRUPT = "KNOWLEDGE_SOURCE_CORRUPT"
    SOURCE_LOCKED = "KNOWLEDGE_SOURCE_LOCKED"
    QUERY_INVALID = "KNOWLEDGE_QUERY_INVALID"
    INVALID_REQUEST = "KNOWLEDGE_INVALID_REQUEST"
    CONFIG_INVALID = "KNOWLEDGE_CONFIG_INVALID"
    LIMIT = "KNOWLEDGE_LIMIT"
    NO_SOURCE = "KNOWLEDGE_NO_SOURCE"
    LANE_DEGRADED = "KNOWLEDGE_LANE_DEGRADED"
    SEMANTIC_UNAVAILABLE = "KNOWLEDGE_SEMANTIC_UNAVAILABLE"
    UNKNOWN_WORKSPACE = "KNOWLEDGE_UNKNOWN_WORKSPACE"  # a workspace filter value names no workspace (warning)
    WEAK_MATCH = "KNOWLEDGE_WEAK_MATCH"  # a warning: the answer has real evidence, but little (search/match.py)
    ACROSS_LANGUAGES = "KNOWLEDGE_ACROSS_LANGUAGES"  # a warning: word search cannot cross languages (semantic off)
    NO_GOOD_MATCH = "KNOWLEDGE_NO_GOOD_MATCH"  # a warning: candidates, none good enough: found=false, no items
    BUDGET_EXCEEDED = "KNOWLEDGE_BUDGET_EXCEEDED"
    LOCKED = "KNOWLEDGE_INDEX_LOCKED"
    DISPATCH_CONFLICT = "KNOWLEDGE_DISPATCH_CONFLICT"
    DISPATCH_UNAUTHORIZED = "KNOWLEDGE_DISPATCH_UNAUTHORIZED"
    DISPATCH_RECORDED = "KNOWLEDGE_DISPATCH_RECORDED"  # a warning: this dispatch_id is already committed
    DELETE_PARTIAL = "KNOWLEDGE_DELETE_PARTIAL"
    NOT_FOUND = "KNOWLEDGE_NOT_FOUND"
    EVAL_BELOW_THRESHOLD = "KNOWLEDGE_EVAL_BELOW_THRESHOLD"
    NO_PRINCIPAL = "KNOWLEDGE_NO_PRINCIPAL"  # access.enabled and no principal configured: every read refused
    ACCESS_DENIED = "KNOWLEDGE_ACCESS_DENIED"  # an operation not offered under access control (akw sql)
    ACCESS_TRIMMED = "KNOWLEDGE_ACCESS_TRIMMED"  # a warning: items not shown, access unconfirmed at the source
    CATALOG_UNAVAILABLE = "KNOWLEDGE_CATALOG_UNAVAILABLE"  # the shared DuckLake catalog cannot be reached (ADR 0013)
    INTERNAL = "KNOWLEDGE_INTERNAL"


class KnowledgeError(Exception):
    """An error with a stable code; its message must never carry indexed text or secrets."""

    def __init__(self, code: Code | str, message: str, **details: object) -> None:
        super().__init__(message)
        self.code = str(code)
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"code": self.code, "message": self.message}
        out.update({k: v for k, v in self.details.items() if v is not None})
        return out


MAX_REQUEST_BYTES = 1_000_000  # a search/dispatch request document; real ones are a few KB


def request_too_large(size: int | None = None) -> KnowledgeError:
    """The one refusal of an oversized request document (`--request /dev/zero`, a huge file or string)."""
    return KnowledgeError(Code.LIMIT, f"request: larger than {MAX_REQUEST_BYTES} bytes", field="request",
                          limit="request_bytes", max_bytes=MAX_REQUEST_BYTES, size=size)


@contextmanager
def refusing_hostile_input() -> Iterator[None]:
    """Request shapes that escape pydantic's validation are still `KNOWLEDGE_INVALID_REQUEST`: JSON
    nested past the recursion limit, lone surrogates (undecodable bytes) found on re-serializing, and
    integers past Python's digit limit (`sys.int_info.default_max_str_digits`)."""
    try:
        yield
    except RecursionError:
        raise KnowledgeError(Code.INVALID_REQUEST, "request is nested too deeply", field="$") from None
    except PydanticSerializationError:
        raise KnowledgeError(Code.INVALID_REQUEST, "request text is not valid Unicode (a lone surrogate)",
                             field="$") from None
    except ValueError as e:  # after pydantic's (a ValueError too): json's guard against 5,000-digit ints
        if "integer string conversion" not in str(e):
            raise
        raise KnowledgeError(Code.INVALID_REQUEST, "request holds a number with too many digits", field="$") from None
