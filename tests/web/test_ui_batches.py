"""The UI shows one view per batch of ready events: what came while it was busy arrives together, nothing waits
for a batch to fill, and closing the view early stops the turn and waits for its clean-up."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing

import pytest

from tests.support.scripted_upstream import Script
from tests.support.service import make_service
from webapp.web.ui import INSTANT, ChatUI, UIState
from webapp.web.ui.stream import ready_batches


async def test_events_that_came_while_the_consumer_was_busy_arrive_in_one_batch() -> None:
    gate = asyncio.Event()

    async def events() -> AsyncGenerator[str, None]:
        yield "a"  # comes alone: the consumer is waiting for it
        await gate.wait()
        for word in ("b", "c", "d"):
            yield word

    batches = []
    async with aclosing(ready_batches(events())) as ready:
        async for batch in ready:
            batches.append(batch)
            if batch == ["a"]:
                gate.set()
                for _ in range(5):  # busy (Gradio post-processing a view) while b, c, d come
                    await asyncio.sleep(0)
    assert batches == [["a"], ["b", "c", "d"]]


async def test_an_error_of_the_events_is_raised_to_the_consumer() -> None:
    async def events() -> AsyncGenerator[str, None]:
        yield "a"
        raise ValueError("bad input")

    seen = []
    with pytest.raises(ValueError, match="bad input"):
        async for batch in ready_batches(events()):
            seen += batch
    assert seen == ["a"]


async def test_closing_early_cancels_the_events_once_and_waits_for_their_clean_up() -> None:
    cleaned = asyncio.Event()

    async def events() -> AsyncGenerator[str, None]:
        try:
            yield "a"
            await asyncio.Event().wait()  # an answer still streaming
        finally:
            await asyncio.sleep(0)  # clean-up that awaits, like storing the answer as interrupted
            cleaned.set()

    async with aclosing(ready_batches(events())) as ready:
        assert await anext(ready) == ["a"]
    assert cleaned.is_set()  # before the close returned


@pytest.mark.parametrize("stop", ["cancel", "close"])
async def test_stopping_a_ui_turn_stores_the_answer_as_interrupted(store, guard, upstream, stop) -> None:
    """Gradio's Stop cancels the task running the turn; a closed page closes its generator."""
    ui = ChatUI(make_service(store, guard, upstream))
    upstream.push(Script(answer=["Once upon a time. "], endless=True, delay_s=0.01))
    state = UIState()
    shown = asyncio.Event()

    async def run() -> None:
        async with aclosing(ui.turn("Tell me a story", [], state, INSTANT)) as views:
            async for view in views:
                if any("Once" in str(m["content"]) for m in view.history):
                    shown.set()
                    if stop == "close":
                        return

    task = asyncio.ensure_future(run())
    await shown.wait()
    if stop == "cancel":
        task.cancel()
    await asyncio.wait({task})
    answer = store.messages(state.session_id)[-1]
    assert (answer.role, answer.status) == ("assistant", "interrupted")
    assert answer.content.startswith("Once upon a time.")


async def test_after_the_first_shown_batch_the_next_waits_for_the_gap_and_takes_what_came() -> None:
    gate, more = asyncio.Event(), asyncio.Event()

    async def events() -> AsyncGenerator[str, None]:
        yield "ready"  # shows nothing: the first word must not wait for a gap it started
        await gate.wait()
        yield "a"
        await more.wait()
        yield "b"
        await more.wait()
        for _ in range(5):  # c comes later than b: with no gap it would be a batch of its own
            await asyncio.sleep(0)
        yield "c"

    batches = []
    async with aclosing(
        ready_batches(events(), gap_s=3600, shows=lambda e: e != "ready", clock=lambda: 0.0)
    ) as ready:
        async for batch in ready:
            batches.append(batch)
            if batch == ["ready"]:
                gate.set()
            elif batch == ["a"]:
                more.set()
    assert batches == [["ready"], ["a"], ["b", "c"]]  # the end of the events sent b and c at once


async def test_once_the_gap_has_passed_each_ready_batch_goes_out_at_once() -> None:
    more = asyncio.Event()
    ticks = iter(range(0, 1000, 10))  # every look at the clock is 10 s later: the gap is always over

    async def events() -> AsyncGenerator[str, None]:
        yield "a"
        await more.wait()
        yield "b"
        for _ in range(5):
            await asyncio.sleep(0)
        yield "c"

    batches = []
    async with aclosing(ready_batches(events(), gap_s=1, clock=lambda: next(ticks))) as ready:
        async for batch in ready:
            batches.append(batch)
            more.set()
    assert batches == [["a"], ["b"], ["c"]]


async def test_a_batch_that_changes_nothing_shown_is_no_view(store, guard, upstream) -> None:
    """Gradio post-processes, diffs and sends the whole chat for every view: the context meter alone (shown
    after the turn) repaints nothing, so it is carried by the next view instead of one of its own."""
    ui = ChatUI(make_service(store, guard, upstream))
    upstream.push(Script(answer=["Once ", "upon ", "a ", "time."], delay_s=0.02))
    views = [view async for view in ui.turn("Tell me a story", [], UIState(), INSTANT)]
    histories = [view.history for view in views]
    assert all(before != after for before, after in zip(histories, histories[1:], strict=False))
    assert views[0].history[-1]["role"] == "user"  # the message shows at once, before any answer word
    assert views[-1].meter and views[-1].done  # the meter still reaches the tab's state, by the last view
