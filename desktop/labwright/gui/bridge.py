"""The one bridge between the core's worker thread and the GUI thread.

`run_agent` runs in a plain thread. Each event is appended to a buffer; the
first event of a batch asks the asyncio loop (qasync, in the GUI thread) to
flush in FLUSH_S seconds, so the GUI sees events in batches of 30-50 ms and
never more than once per batch. Cancel is a flag the core checks between
steps. Shutdown: cancel, join with a timeout.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

from PySide6.QtCore import QObject, Signal

from labwright.core.events import Done, Error, Event
from labwright.core.reasons import Reason
from labwright.core.settings.config import RunConfig

# a run's work: given the cancel flag and the streaming callback, its events
Job = Callable[[threading.Event, Callable[[str, str], None]], Iterator[Event]]

FLUSH_S = 0.04
MAX_BATCH = 400  # a flood is handed over in slices, so the GUI thread breathes between them


class Batcher:
    """Collects items from any thread; delivers them in the loop's thread, batched."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, deliver: Callable[[list[Any]], None]
    ) -> None:
        self._loop = loop
        self._deliver = deliver
        self._lock = threading.Lock()
        self._items: list[Any] = []
        self._armed = False

    def put(self, item: Any) -> None:
        with self._lock:
            self._items.append(item)
            if self._armed:
                return
            self._armed = True
        self._loop.call_soon_threadsafe(self._arm)

    def _arm(self) -> None:  # in the loop's thread
        self._loop.call_later(FLUSH_S, self.flush)

    def flush(self) -> None:
        with self._lock:
            items, self._items = self._items[:MAX_BATCH], self._items[MAX_BATCH:]
            more = bool(self._items)
            self._armed = more
        if more:
            self._loop.call_soon(self.flush)  # after whatever else is waiting (timers, input)
        if items:
            self._deliver(items)


class RunBridge(QObject):
    """Starts a run in a worker thread and re-emits its events as Qt signals."""

    events = Signal(list)  # a batch of core events, in the GUI thread
    text = Signal(bool, str)  # streamed document text: (starts anew, the pieces of this batch)
    finished = Signal(object)  # the Done event (None if the worker died)

    def __init__(
        self, loop: asyncio.AbstractEventLoop | None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._batcher: Batcher | None = None
        if loop is not None:
            self.attach_loop(loop)
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self.run_dir: Path | None = None

    def attach_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """The GUI thread's asyncio loop; the app attaches it once the window is on screen."""
        self._batcher = Batcher(loop, self._deliver)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, config: RunConfig) -> None:
        """Run the pipeline on `config` in the worker thread."""
        self.start_job(partial(_run_agent, config), config.out_dir)

    def stream_text(self, kind: str, text: str) -> None:
        """The core's on_text callback (worker thread): batched like the events."""
        assert self._batcher is not None
        self._batcher.put(_Text(kind == "start", "" if kind == "start" else text))

    def start_job(self, job: Job, run_dir: Path | None = None) -> None:
        """Run any generator of core events (a run, a re-draft) in the worker thread.

        `job(cancel, on_text)` gets the cancel flag and the streaming callback."""
        if self.running:
            raise RuntimeError("a run is already going")
        if self._batcher is None:
            raise RuntimeError("no event loop attached")
        self._cancel = threading.Event()
        self.run_dir = run_dir
        self._thread = threading.Thread(
            target=self._work, args=(job, self._cancel), name="labwright-run", daemon=True
        )
        self._thread.start()

    def cancel(self) -> None:
        self._cancel.set()

    def shutdown(self, timeout_s: float = 5.0) -> bool:
        """Cancel and wait for the worker; True when it ended in time."""
        self.cancel()
        if self._thread is not None:
            self._thread.join(timeout_s)
            alive = self._thread.is_alive()
            if not alive:
                self._thread = None
            return not alive
        return True

    def _work(self, job: Job, cancel: threading.Event) -> None:
        batcher = self._batcher  # (worker thread)
        assert batcher is not None
        done: Event | None = None
        try:
            for event in job(cancel, self.stream_text):
                batcher.put(event)
                if isinstance(event, Done):
                    done = event
        except Exception as e:  # the core failed outright: say so, keep the window alive
            batcher.put(Error("run", f"{type(e).__name__}: {e}"))
            # the message is in the error event; the reason is one the table explains
            done = Done("failed", reasons=[Reason.INTERNAL_ERROR.value])
            batcher.put(done)
        batcher.put(_End(done))

    def _deliver(self, items: list[Any]) -> None:  # GUI thread
        events = [i for i in items if not isinstance(i, (_End, _Text))]
        if events:
            self.events.emit(events)
        texts = [i for i in items if isinstance(i, _Text)]
        if texts:
            restart = max((n for n, t in enumerate(texts) if t.restart), default=-1)
            pieces = "".join(t.text for t in texts[restart + 1 if restart >= 0 else 0 :])
            self.text.emit(restart >= 0, pieces)
        for item in items:
            if isinstance(item, _End):
                if self._thread is not None:
                    self._thread.join(1.0)
                    self._thread = None
                self.finished.emit(item.done)


def _run_agent(
    config: RunConfig, cancel: threading.Event, on_text: Callable[[str, str], None]
) -> Iterator[Event]:
    from labwright.core.run.pipeline import run_agent  # imported here, off the GUI thread

    return run_agent(config, cancel, on_text=on_text)


class _Text:
    """A piece of streamed document text; `restart` when a new document begins."""

    def __init__(self, restart: bool, text: str) -> None:
        self.restart, self.text = restart, text


class _End:
    """The worker's last word: the run is over."""

    def __init__(self, done: Event | None) -> None:
        self.done = done


def call_in_thread(
    loop: asyncio.AbstractEventLoop, fn: Callable[[], Any], then: Callable[[Any], None]
) -> threading.Thread:
    """Run `fn` off the GUI thread; `then(result or exception)` runs back in the loop's thread."""

    def work() -> None:
        try:
            result: Any = fn()
        except Exception as e:  # handed to `then`, which decides what to show
            result = e
        loop.call_soon_threadsafe(then, result)

    thread = threading.Thread(target=work, name="labwright-io", daemon=True)
    thread.start()
    return thread
