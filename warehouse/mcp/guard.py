"""Every JSON-RPC request on stdin gets an answer, even one the SDK cannot read (issue 25).

The SDK's stdio transport parses each line with pydantic; a line it cannot parse — arguments nested
20,000 deep, a lone surrogate (`"\\ud800abc"`), a 5,000-digit integer — becomes an exception in its
read stream and no response is ever written, so the client waits forever. `AnsweringReadStream`
sits between that reader and the session: such a failure is answered here with a JSON-RPC error
carrying the request's id (found by a depth-aware scan, since the line is not readable JSON) through
the server's own write stream; one without a findable id (a notification, garbage) goes on as before.
"""

from __future__ import annotations

import json
import re
from typing import Any

import mcp_types as types
from mcp.shared.message import SessionMessage

INVALID_REQUEST = -32600  # JSON-RPC: the JSON sent is not a valid request object
PARSE_ERROR = -32700  # JSON-RPC: invalid JSON was received
_ID_VALUE = re.compile(r'\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,15})(?=\s*[,}])')


def request_id(line: str) -> int | str | None:
    """The `id` member of the top-level object of `line`, without parsing the rest (it may be
    unparsable); None when there is none at depth 1 or its value is not a short string or integer."""
    depth, i, n = 0, 0, len(line)
    while i < n:
        c = line[i]
        if c == '"':
            j = i + 1
            while j < n and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            if depth == 1 and line[i:j + 1] == '"id"':
                m = _ID_VALUE.match(line, j + 1)
                if m:
                    return _id_value(m.group(1))
            i = j + 1
            continue
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
        i += 1
    return None


def _id_value(literal: str) -> int | str | None:
    """A JSON integer or string literal as the id; None for one that cannot be an id (a lone surrogate)."""
    try:
        v = json.loads(literal)
        if isinstance(v, str):
            v.encode("utf-8")
    except (ValueError, UnicodeEncodeError):
        return None
    return v if isinstance(v, int | str) else None


class AnsweringReadStream:
    """The server's read stream (`ReadStream` of the SDK), answering the lines its parser refused.

    The SDK's stdin reader puts a pydantic `ValidationError` (with the raw line as its input) in the
    stream for a line it cannot parse; the session would only log it. Here such an item is answered on
    `write` with a JSON-RPC error for the line's id, and skipped; everything else passes through, the
    sender's context (`last_context`) included."""

    def __init__(self, inner: Any, write: Any) -> None:
        self._inner, self._write = inner, write

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        return await self.__anext__()

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> AnsweringReadStream:
        return self

    async def __anext__(self) -> Any:
        while True:
            item = await self._inner.__anext__()
            ident = _unreadable_request_id(item)
            if ident is None:
                return item
            await self._write.send(SessionMessage(_error(ident, item)))

    async def __aenter__(self) -> AnsweringReadStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self._inner.__aexit__(*exc)


def _unreadable_request_id(item: Any) -> int | str | None:
    """The id of the request behind a parse failure the SDK put in the stream; None otherwise."""
    if not isinstance(item, Exception) or not hasattr(item, "errors"):
        return None
    try:
        line = item.errors()[0].get("input")
    except Exception:  # not a pydantic error after all
        return None
    return request_id(line) if isinstance(line, str) else None


def _error(ident: int | str, e: Any) -> types.JSONRPCError:
    """A coded answer that names what was wrong, never echoing the input."""
    text = str(e)
    if "recursion" in text.lower() or "depth" in text.lower():
        why = "the request is nested too deeply"
    elif "surrogate" in text.lower() or "unicode" in text.lower():
        why = "the request text is not valid Unicode (a lone surrogate)"
    elif "digits" in text.lower() or "number" in text.lower():
        why = "the request holds a number too large to read"
    else:
        why = "the request is not a JSON-RPC message this server can read"
    code = PARSE_ERROR if "json" in text.lower() and "invalid" in text.lower() else INVALID_REQUEST
    return types.JSONRPCError(jsonrpc="2.0", id=ident,
                              error=types.ErrorData(code=code, message=f"KNOWLEDGE_INVALID_REQUEST: {why}"))
