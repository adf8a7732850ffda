"""One turn's pipeline events folded into Chatbot messages, one small method per event type.

The chat shown during a turn is the stored chat (rebuilt from the store, never taken from the browser) plus
what this turn added; text is kept raw and rendered at each view, so a link is judged on the whole answer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from webapp.turn.events import (
    AnswerDelta,
    ContextInfo,
    Notice,
    ReasoningDelta,
    Retract,
    SessionReady,
    TurnDone,
    TurnEvent,
)
from webapp.turn.sessions import length_note
from webapp.web.ui.render import ChatPainter, Message, context_meter, thought_title
from webapp.web.ui.state import UIState

T = TypeVar("T")


@dataclass(frozen=True)
class TurnView:
    """One streaming update for the UI: the chat history and the context meter."""

    history: list[Message]
    meter: str
    done: bool = False


@dataclass
class TurnRenderer:
    """The chat as it grows during one turn."""

    state: UIState
    painter: ChatPainter
    before: list[Message]  # the stored chat and the user's new message, already rendered
    meter: str = ""
    notes: list[Message] = field(default_factory=list)  # non-fatal notices, shown above the answer
    reasoning: str | None = None
    reasoning_since: float = 0.0
    reasoning_s: float | None = None
    answer: str = ""
    closing: Message | None = (
        None  # the refusal, error or stop notice that ends an unfinished turn, or the cut note
    )

    def view(self, *, done: bool = False) -> TurnView:
        history = [*self.before, *self.notes]
        if self.reasoning is not None:
            finished = self.reasoning_s is not None
            title = thought_title(self.reasoning_s or 0.0) if finished else "Thinking…"
            history.append(
                self.painter.reasoning(self.reasoning, title=title, done=finished, seconds=self.reasoning_s)
            )
        if self.answer:
            history.append(self.painter.text("assistant", self.answer, settled=done))
        if self.closing is not None:
            history.append(self.closing)
        return TurnView(history, self.meter, done)

    def apply(self, events: Sequence[TurnEvent]) -> TurnView:
        """Fold events in and return the one view that shows them all."""
        for event in events:
            if isinstance(event, TurnDone):  # a turn's last event
                return self._done(event)
            self._fold(event)
        return self.view()

    def _fold(self, event: TurnEvent) -> None:
        if isinstance(event, SessionReady):
            self.state.session_id = event.session_id
        elif isinstance(event, ContextInfo):
            self.meter = context_meter(event)
        elif isinstance(event, Notice):
            self.notes.append(self.painter.notice("info", event.message))
        elif isinstance(event, ReasoningDelta):
            if self.reasoning is None:
                self.reasoning, self.reasoning_since = "", time.monotonic()
            self.reasoning += event.text
        elif isinstance(event, AnswerDelta):
            self.answer += event.text
        elif isinstance(event, Retract):
            self.reasoning, self.answer = None, ""

    def fail(self, message: str) -> TurnView:
        self.closing = self.painter.notice("error", message)
        return self.view(done=True)

    def _done(self, done: TurnDone) -> TurnView:
        if self.reasoning is not None:
            self.reasoning_s = (
                done.reasoning_s if done.reasoning_s is not None else time.monotonic() - self.reasoning_since
            )
        if done.status != "complete":
            self.closing = self.painter.notice(done.kind, done.message or "The answer was stopped.")
        elif done.finish_reason == "length":
            self.closing = self.painter.notice("info", length_note(done.completion_tokens))
        return self.view(done=True)


async def ready_batches(
    events: AsyncIterator[T],
    *,
    gap_s: float = 0.0,
    shows: Callable[[T], bool] = lambda event: True,
    clock: Callable[[], float] = time.monotonic,
) -> AsyncGenerator[list[T], None]:
    """The events in batches: the next one as soon as it comes, with all that came while the consumer was
    busy with the batch before. Nothing waits to fill a batch until the first event that ``shows`` has gone
    out; after it, a batch goes out at most every ``gap_s`` (the end of the events goes out at once).

    Gradio's cost is per yield, not per word (the whole chat post-processed, diffed and sent): when it falls
    behind the model under load, one yield carries every word that passed meanwhile instead of a queue of
    yields, each a word late; when it keeps up, ``gap_s`` keeps a reader's screen from being repainted
    more often than anyone reads, without holding the first word. The events are read by a task of their
    own; closing this generator early (``aclose``, or a cancellation while it waits for events) cancels that
    task once and waits for its clean-up, so the answer is stored as interrupted before the close returns,
    as the API does on a disconnect. That holds only if something closes it: Gradio does not close a
    handler's generator that it abandons between two updates (Stop), so the handler registers the turn with
    ``closed_with_event`` (``webapp/web/ui/queue.py``); a generator nobody closes is closed by the garbage
    collector, later.
    """
    queue: asyncio.Queue[_Item[T]] = asyncio.Queue()
    reader = asyncio.ensure_future(_read_into(events, queue))
    sent_at: float | None = None  # when the last batch went out, once one showed something
    try:
        while True:
            items = [await queue.get()]
            _drain(queue, items)
            if sent_at is not None:
                await _fill_until(queue, items, sent_at + gap_s, clock)
            batch = [item.event for item in items if isinstance(item, _Event)]
            if batch:
                if sent_at is not None or any(shows(event) for event in batch):
                    sent_at = clock()
                yield batch
            last = items[-1]
            if isinstance(last, _Failed):
                raise last.error
            if last is _END:
                return
    finally:
        if not reader.done():
            reader.cancel()
        await asyncio.wait({reader})


def _drain(queue: asyncio.Queue[_Item[T]], items: list[_Item[T]]) -> None:
    while not queue.empty():
        items.append(queue.get_nowait())


async def _fill_until(
    queue: asyncio.Queue[_Item[T]], items: list[_Item[T]], until: float, clock: Callable[[], float]
) -> None:
    """More items until ``until`` on ``clock`` or the events' end, whichever is first."""
    while not _ends(items[-1]) and (wait := until - clock()) > 0:
        try:
            items.append(await asyncio.wait_for(queue.get(), wait))
        except TimeoutError:
            return
        _drain(queue, items)


def _ends(item: _Item[T]) -> bool:
    return item is _END or isinstance(item, _Failed)


@dataclass(frozen=True)
class _Event(Generic[T]):
    event: T


@dataclass(frozen=True)
class _Failed:
    error: Exception


_END = object()
_Item = _Event[T] | _Failed | object


async def _read_into(events: AsyncIterator[T], queue: asyncio.Queue[_Item[T]]) -> None:
    try:
        async for event in events:
            queue.put_nowait(_Event(event))
    except Exception as exc:  # raised again by the consumer, in its own task
        queue.put_nowait(_Failed(exc))
        return
    queue.put_nowait(_END)
