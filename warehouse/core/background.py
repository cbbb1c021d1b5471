"""One background writer thread per process: small best-effort writes off a response's path.

A caller `submit`s a job (a callable) and returns at once; the thread runs the jobs in the order
they were queued. `submit_batch` jobs of the same key queued back to back are merged into one call
(a batch: one transaction instead of one per response). The queue is bounded: a full queue drops
the job (logged), it never blocks the caller. `flush` waits until every job queued before it ran;
`call` runs a job on the thread after every earlier one and returns its result (or raises its
error) — order-sensitive work (forget after the hits it must wipe) goes through it. The thread is
a daemon and `flush`es at interpreter exit (atexit); a process that dies without exiting loses
what was still queued. A forked child starts a thread of its own on first use.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Any

log = logging.getLogger("akw.background")

QUEUE_MAX = 4096  # jobs; past this a job is dropped (a counter is best effort, a read never waits)
EXIT_FLUSH_S = 5.0  # at interpreter exit, wait at most this long for the queue to drain


class _Batch:
    """Payloads of one key, merged by `merge` and written by `write` in one call."""

    def __init__(self, key: Hashable, write: Callable[[Any], None], payload: Any,
                 merge: Callable[[Any, Any], Any]) -> None:
        self.key, self.write, self.payload, self.merge = key, write, payload, merge


class Writer:
    """The queue and its thread (started on first use, again after a fork)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._pid = -1
        self._q: queue.Queue[Any] = queue.Queue(QUEUE_MAX)
        self.dropped = 0

    def _queue(self) -> queue.Queue[Any]:
        with self._guard:
            if self._pid != os.getpid():
                self._q, self._pid = queue.Queue(QUEUE_MAX), os.getpid()
                threading.Thread(target=self._run, args=(self._q,), name="akw-background", daemon=True).start()
            return self._q

    def _put(self, job: Any) -> bool:
        try:
            self._queue().put_nowait(job)
            return True
        except queue.Full:
            self.dropped += 1
            log.warning("background queue full: a write was dropped (%d so far)", self.dropped)
            return False

    def submit_batch(self, key: Hashable, write: Callable[[Any], None], payload: Any,
                     merge: Callable[[Any, Any], Any]) -> bool:
        """Queue `write(payload)`; adjacent jobs of `key` become one `write(merge(a, b))`."""
        return self._put(_Batch(key, write, payload, merge))

    def call(self, fn: Callable[[], Any], timeout: float | None = None) -> Any:
        """Run `fn` on the thread after every job queued before it; its result or its error."""
        fut: Future[Any] = Future()
        self._queue().put((fn, fut))  # waits for room rather than drop an ordered job
        return fut.result(timeout)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every job queued before this call ran; False if `timeout` passed first."""
        if self._pid != os.getpid():
            return True  # nothing was queued in this process
        try:
            self.call(lambda: None, timeout)
            return True
        except TimeoutError:
            return False

    @staticmethod
    def _run(q: queue.Queue[Any]) -> None:
        while True:
            jobs = [q.get()]
            while len(jobs) < QUEUE_MAX:
                try:
                    jobs.append(q.get_nowait())
                except queue.Empty:
                    break
            pending: _Batch | None = None
            for job in jobs:
                if isinstance(job, _Batch) and pending is not None and job.key == pending.key:
                    pending.payload = pending.merge(pending.payload, job.payload)
                    continue
                _run_batch(pending)
                pending = job if isinstance(job, _Batch) else None
                if not isinstance(job, _Batch):
                    fn, fut = job
                    try:
                        fut.set_result(fn())
                    except BaseException as e:  # handed to the caller of `call`
                        fut.set_exception(e)
            _run_batch(pending)


def _run_batch(batch: _Batch | None) -> None:
    if batch is not None:
        try:
            batch.write(batch.payload)
        except Exception as e:  # best effort: the thread must live on
            log.warning("background write failed: %s", type(e).__name__)


WRITER = Writer()
atexit.register(WRITER.flush, EXIT_FLUSH_S)
