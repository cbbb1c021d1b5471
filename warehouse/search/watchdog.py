"""Lane deadlines: one sleeping thread interrupts a DuckDB cursor whose lane query overruns.

A `threading.Timer` per lane query cost a thread start per lane (~0.3 ms each, three per
search); this keeps one daemon thread per engine that wakes only at the earliest deadline.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class Interruptible(Protocol):
    def interrupt(self) -> None: ...


class Watchdog:
    """`with dog.deadline(cursor, seconds):` interrupts `cursor` if the block is still running then."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int]] = []
        self._live: dict[int, Interruptible] = {}
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None

    def stop(self) -> None:
        """End the sleeping thread (its engine closed), so a process that opens many engines keeps no
        threads; a later deadline starts a new one. Waits for the thread to end (it only has to wake),
        so a closed engine has no thread left when `close` returns."""
        with self._cond:
            thread, self._thread = self._thread, None
            self._heap.clear()
            self._live.clear()
            self._cond.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2)

    @contextmanager
    def deadline(self, target: Interruptible, seconds: float) -> Iterator[None]:
        key = next(self._ids)
        with self._cond:
            self._live[key] = target
            heapq.heappush(self._heap, (time.monotonic() + seconds, key))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="akw-lane-watchdog", daemon=True)
                self._thread.start()
            elif self._heap[0][1] == key:
                self._cond.notify()  # the new deadline is the earliest: re-arm the sleeper
        try:
            yield
        finally:
            with self._cond:
                self._live.pop(key, None)

    def _run(self) -> None:
        me = threading.current_thread()
        with self._cond:
            while self._thread is me:
                while self._heap and self._heap[0][1] not in self._live:
                    heapq.heappop(self._heap)  # finished in time
                if not self._heap:
                    self._cond.wait()
                    continue
                due, key = self._heap[0]
                wait = due - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                heapq.heappop(self._heap)
                target = self._live.pop(key, None)
                if target is not None:
                    target.interrupt()
