"""A model call in flight, seen from a run's generator: progress events until the reply.

A run is one synchronous generator of events, and a model call blocks for as long
as the model writes — minutes, for a local model. `in_flight` runs the call in a
worker thread and, while it runs, yields `Progress` events from what the call
reports (streamed.Meter: tokens so far), one a second even when nothing arrives
(a server still reading a long prompt), never more than four a second, and none
for a call that ends within FIRST_S. Streamed text pieces and restarts are handed
back through the same queue, so `on_piece`/`on_restart` run in the generator's own
thread, in order.

The call's deadline and the user's cancel stay the client's (its watchdog cuts the
sockets); the call always ends before `in_flight` returns or raises. A consumer
that stops listening (the generator closed, a second Ctrl-C in the waiting thread)
cancels the call, and still waits for it to end. A lone call gets a thread of its
own, joined before `in_flight` returns. A stage that makes a call a turn
(exploration) opens one `Worker` for all of them and closes it when it ends: a
turn then need not wait for a new thread to be scheduled (a few ms each on a busy
machine, as much as the loop's own work per turn).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Generator
from typing import Any

from labwright.core.events import Event, Progress
from labwright.core.llm.client import Reply
from labwright.core.llm.streamed import HEARTBEAT_S, PROGRESS_EVERY_S, Streaming

FIRST_S = 0.5  # a call that ends sooner shows no progress at all
THREAD_NAME = "labwright-llm-call"


class Worker:
    """One thread that runs a stage's model calls, one after the other.

    A daemon thread, like a lone call's: a process that exits with a call in flight
    does not wait for it (a concurrent.futures pool would, up to the call's
    deadline). `close()` joins it; use it as a context manager.
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def submit(self, job: Callable[[], None]) -> None:
        if self._thread is None:  # started by the first call, not by a stage that makes none
            self._thread = threading.Thread(target=self._serve, name=THREAD_NAME, daemon=True)
            self._thread.start()
        self._jobs.put(job)

    def close(self) -> None:
        if self._thread is not None:
            self._jobs.put(None)
            self._thread.join()
            self._thread = None

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            job()  # in_flight's work: it never raises


class Feed:
    """What a call in flight reports back; its methods may be called from any thread."""

    def __init__(self, cancelled: Callable[[], bool]) -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._abandoned = threading.Event()
        self._cancelled = cancelled

    def cancelled(self) -> bool:
        """The call's cancel flag: the user's, or nobody waits for the reply any more."""
        return self._abandoned.is_set() or self._cancelled()

    def progress(self, streaming: Streaming) -> None:
        self._queue.put(streaming)

    def piece(self, text: str) -> None:
        self._queue.put(_Piece(text))

    def restart(self) -> None:
        self._queue.put(_RESTART)


def in_flight(
    role: str,
    model: str,
    call: Callable[[Feed], Reply],
    *,
    cancelled: Callable[[], bool],
    on_piece: Callable[[str], None] | None = None,
    on_restart: Callable[[], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
    worker: Worker | None = None,
) -> Generator[Event, None, Reply]:
    """Run `call(feed)` in a worker thread (`worker`'s, or one of its own), yielding
    `Progress` until it returns; then return its reply, or raise what it raised
    (LLMError, Cancelled). `call` must pass `feed.cancelled` to the client as its
    cancel flag."""
    feed = Feed(cancelled)
    outcome: list[Any] = []
    ended = threading.Event()

    def work() -> None:
        try:
            outcome.append(call(feed))
        except BaseException as e:  # handed to the waiting generator, raised there
            outcome.append(e)
        finally:
            feed._queue.put(_DONE)
            ended.set()

    start = clock()
    own = worker is None
    if worker is None:
        worker = Worker()
    worker.submit(work)
    shown: float | None = None  # when the last Progress went out
    latest = Streaming(0, 0, False, False)
    pending = False  # a report came that is not shown yet
    try:
        while True:
            now = clock()
            due = _next_due(start, shown, pending, now)
            try:
                item = feed._queue.get(timeout=max(0.0, due - now))
            except queue.Empty:
                item = None
            if item is _DONE:
                break
            if isinstance(item, _Piece):
                if on_piece is not None:
                    on_piece(item.text)
            elif item is _RESTART:  # an attempt that had shown pieces starts over
                if on_restart is not None:
                    on_restart()
                latest, pending = Streaming(0, 0, False, False), True
            elif isinstance(item, Streaming):
                latest, pending = item, True
            now = clock()
            if now >= _next_due(start, shown, pending, now):
                shown, pending = now, False
                ms = int((now - start) * 1000)
                yield Progress(role, model, latest.tokens, ms, latest.estimated, latest.thinking)
    finally:
        if not ended.is_set():
            feed._abandoned.set()  # nobody waits for this reply: the client cuts the call
        ended.wait()
        if own:
            worker.close()
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    assert isinstance(result, Reply)
    return result


def _next_due(start: float, shown: float | None, pending: bool, now: float) -> float:
    """When the next Progress may go out: not before FIRST_S into the call, then at most
    every PROGRESS_EVERY_S when there is news, and every HEARTBEAT_S in any case."""
    if shown is None:
        return start + FIRST_S
    return shown + (PROGRESS_EVERY_S if pending else HEARTBEAT_S)


class _Piece:
    def __init__(self, text: str) -> None:
        self.text = text


_RESTART = object()
_DONE = object()
