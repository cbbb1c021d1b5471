"""A Ctrl-C (SIGINT) that per-unit isolation cannot swallow.

DuckDB turns a SIGINT that arrives during a query into `RuntimeError('Query interrupted')`, an
ordinary Exception, and the extractors catch every Exception of one session so that one bad
session never stops the others. Without this module a cancelled reindex recorded the interrupted
session as failed and went on to publish. `watch()` notes the signal before Python raises
KeyboardInterrupt; `check()` turns the note back into KeyboardInterrupt wherever a unit's error
would be recorded.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_requested = threading.Event()


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _requested.set()
    signal.default_int_handler(signum, frame)


@contextmanager
def watch() -> Iterator[None]:
    """Note SIGINT for the duration (main thread, default handler only: a host's own handler stays)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    _requested.clear()
    signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _requested.clear()


def check() -> None:
    """Raise KeyboardInterrupt if a SIGINT arrived, even one a caught exception carried away."""
    if _requested.is_set():
        raise KeyboardInterrupt
