"""Gradio's event queue, woken by work instead of polling for it.

Gradio 6's queue looks for work in a loop that sleeps ``sleep_when_free`` (1 ms by default) whenever it has
none, or has no free slot. railchat mounts two pages (the chat at ``/``, the reviewers' copy at ``/audit``),
each with its own queue: even at 10 ms that was ~200 event-loop wake-ups a second and ~11 ms of CPU a second
in an app nobody used, taken from the API's streams too, and an event waited up to 10 ms before it started.

``WokenQueue`` runs the same dispatch but waits on an ``asyncio.Event`` that is set when an event is pushed,
when a job ends (a slot frees), and when the queue closes. Everything that changes those conditions runs on
the event loop's thread, so a check followed by a wait cannot miss a wake-up; the wait still ends after
``IDLE_RECHECK_S`` as a backstop, should a Gradio release add another way in.

Only ``start_processing`` is Gradio's code restated (gradio==6.31.0, pinned): when Gradio changes it, the
test in ``tests/web/test_ui_queue.py`` runs a real event through this loop.

Stop (an event with ``cancels=``): Gradio's ``/cancel`` route ends the cancelled event with a completion of
its own whose output is ``{}``, no ``data``. The page's loop for that event is still running and applies it as
data: the read of a missing list throws, and the event's outputs (the chat) get Gradio's "Error" label. The
page's own cancel sets the event "complete" once ``/cancel`` and a ``/reset`` have answered; when the
completion arrives first, as it mostly does, the error is overwritten unseen, but on a busy machine it may
arrive after (behind the page's backlog of chat updates) and the label stays. ``SessionMessages`` gives
such a completion an empty ``data`` list, which the page applies as "nothing changed".

Analytics: at the end of every event Gradio rebuilds a summary of the last 10,000 events for its monitoring
dashboard, in a pandas DataFrame (importing pandas the first time: ~50 MB). railchat closes the monitoring
routes (``webapp.web.gradiodoors``), so nothing reads the summary, yet it cost the UI path CPU per turn that
grew with the number of turns served. ``WokenQueue`` keeps Gradio's per-event records (its own status
bookkeeping uses them) but only the last ``ANALYTICS_KEPT``, and never computes the summary.

Stop between two updates: when ``/cancel`` lands while Gradio post-processes or sends a turn's last update,
the handler's generator is suspended at a ``yield`` and Gradio closes only its own wrapper around it
(``gradio.utils.function_wrapper`` drops the handler's generator unclosed). The turn would then be closed by
the garbage collector, in the background, after ``/cancel`` answered and after Stop read the chat back.
A handler hands the generator it streams to ``closed_with_event``; the event's task closes what is still open
when it ends, however it ends, or waits for the close already under way (the dropped handler's finaliser
may start it first), so ``/cancel`` (which waits for that task) returns with the answer stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import AsyncGenerator
from typing import Any, TypeVar

from gradio.queueing import Queue
from gradio.server_messages import ProcessCompletedMessage
from gradio.utils import LRUCache, run_coro_in_background, set_task_name

IDLE_RECHECK_S = 1.0
# Gradio's per-event analytics records kept (Gradio keeps 10,000; nothing in railchat reads them).
ANALYTICS_KEPT = 64
T = TypeVar("T")
# Longest a queued event waits, once it ended, for a turn it opened to finish closing (its clean-up stores
# the answer; bounded so a stuck clean-up cannot hold the event's slot for good).
CLOSE_WAIT_S = 30.0
_Opened = list[tuple[AsyncGenerator[Any, None], asyncio.Event]]
# The generators the running event's handler streams from (the event's task sets it; handlers run in it).
_EVENT_GENERATORS: contextvars.ContextVar[_Opened | None] = contextvars.ContextVar(
    "railchat_event_generators", default=None
)


def closed_with_event(generator: AsyncGenerator[T, None]) -> AsyncGenerator[T, None]:
    """``generator``, closed when the queued event running it ends, even if Gradio abandons the handler
    (see the module docstring). Outside a queued event (a test calling the handler): unchanged."""
    opened = _EVENT_GENERATORS.get()
    if opened is None:
        return generator
    closed = asyncio.Event()
    tracked = _signalling(generator, closed)
    opened.append((tracked, closed))
    return tracked


async def _signalling(generator: AsyncGenerator[T, None], closed: asyncio.Event) -> AsyncGenerator[T, None]:
    """``generator``'s items; ``closed`` is set once it is closed, by whichever task closed it."""
    try:
        async with contextlib.aclosing(generator):
            async for item in generator:
                yield item
    finally:
        closed.set()


async def _close_all(opened: _Opened) -> None:
    for generator, closed in opened:
        try:
            await generator.aclose()
        except RuntimeError:
            # already closing in another task: the garbage collector's, for the handler Gradio dropped
            pass
        except Exception:  # a failing clean-up is logged by the turn; the others still close
            pass
        if getattr(generator, "ag_frame", None) is not None and not closed.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(closed.wait(), CLOSE_WAIT_S)


class SessionMessages(asyncio.Queue[Any]):
    """One page's messages; a completion without data (Gradio's, for a cancelled event) gets an empty list."""

    def put_nowait(self, item: Any) -> None:
        if isinstance(item, ProcessCompletedMessage) and item.success and "data" not in item.output:
            item = item.model_copy(update={"output": {**item.output, "data": []}})
        super().put_nowait(item)


class _Sessions(LRUCache[str, Any]):
    """Gradio's per-session message queues, each a ``SessionMessages`` (Gradio creates plain ones)."""

    def __setitem__(self, key: str, value: Any) -> None:
        if type(value) is asyncio.Queue and value.empty():
            value = SessionMessages()
        super().__setitem__(key, value)


class WokenQueue(Queue):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._adapt()

    @classmethod
    def replacing(cls, queue: Queue) -> WokenQueue:
        """A WokenQueue with the settings of ``queue`` (the one ``Blocks.queue()`` made), before it starts."""
        woken = cls.__new__(cls)
        woken.__dict__.update(queue.__dict__)
        woken._adapt()
        return woken

    def _adapt(self) -> None:
        """railchat's state over Gradio's: the wake-up event, the sessions' message queues, fewer records."""
        self._work = asyncio.Event()
        self.ANALYTICS_MAX_EVENTS = ANALYTICS_KEPT
        self._keep_completions_applicable()

    def _keep_completions_applicable(self) -> None:
        sessions = _Sessions(self.pending_messages_per_session.max_size)
        for key, messages in self.pending_messages_per_session.items():
            sessions[key] = messages
        self.pending_messages_per_session = sessions

    def compute_analytics_summary(self, records: Any) -> Any:
        """The summary as it was (empty): the monitoring routes that read it are closed."""
        return self.cached_event_analytics_summary

    def wake(self) -> None:
        self._work.set()

    def _idle(self) -> bool:
        return len(self) == 0 or None not in self.active_jobs

    async def push(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().push(*args, **kwargs)
        finally:
            self.wake()

    async def process_events(self, *args: Any, **kwargs: Any) -> None:
        opened: _Opened = []
        token = _EVENT_GENERATORS.set(opened)  # seen by the handlers this task runs
        try:
            await super().process_events(*args, **kwargs)
        finally:
            _EVENT_GENERATORS.reset(token)
            await _close_all(opened)  # what a cancelled event's handler left open (a no-op once finished)
            self.wake()  # a slot is free

    def close(self) -> None:
        super().close()
        self.wake()

    async def start_processing(self) -> None:
        try:
            while not self.stopped:
                if self._idle():
                    await self._wait_for_work()
                    continue
                async with self.delete_lock:
                    event_batch = self.get_events()
                if event_batch:
                    self._dispatch(*event_batch)
                else:  # every waiting event's function is at its concurrency limit: a job's end wakes us
                    await self._wait_for_work()
        finally:
            self.stopped = True
            self._cancel_asyncio_tasks()

    async def _wait_for_work(self) -> None:
        self._work.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._work.wait(), IDLE_RECHECK_S)

    def _dispatch(self, events: list[Any], batch: bool, concurrency_id: str) -> None:
        """Gradio's own start of a job (``Queue.start_processing`` in gradio 6.31.0)."""
        self.active_jobs[self.active_jobs.index(None)] = events
        event_queue = self.event_queue_per_concurrency_id[concurrency_id]
        event_queue.current_concurrency += 1
        start_time = time.time()
        fn = events[0].fn
        event_queue.start_times_per_fn[fn].add(start_time)
        for event in events:
            if (a := self.event_analytics.get(event._id)) is not None:
                a["status"] = "processing"
        task = run_coro_in_background(self.process_events, events, batch, start_time, fn)
        set_task_name(task, events[0].session_hash, fn._id, events[0]._id, batch)
        self._asyncio_tasks.add(task)
        task.add_done_callback(self._asyncio_tasks.discard)
        if self.live_updates:
            self.broadcast_estimations(concurrency_id)
