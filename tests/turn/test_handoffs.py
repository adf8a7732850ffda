"""A new chat's first word waits for as few thread hand-offs to the store as the steps need: the chat with
its first message, then the input's verdicts with the transcript read back; the answer's row is written while
the model is asked."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from tests.support.scripted_upstream import Script
from webapp.turn.events import ContextInfo, SessionReady, TurnDone, TurnRequest


async def test_a_new_text_chat_reaches_the_model_after_two_store_hand_offs(
    service: Any, store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    handed: list[str] = []
    to_thread = asyncio.to_thread

    async def counting(fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        handed.append(getattr(fn, "__name__", repr(fn)))
        return await to_thread(fn, *args, **kwargs)

    monkeypatch.setattr(asyncio, "to_thread", counting)
    before_context: list[str] = []
    events = []
    async for event in service.run_turn(TurnRequest(owner="alice", text="Say hello")):
        if isinstance(event, ContextInfo):
            before_context = list(handed)
        events.append(event)
    assert before_context == ["create", "store_and_read"]
    assert isinstance(events[-1], TurnDone) and events[-1].status == "complete"
    session_id = next(e for e in events if isinstance(e, SessionReady)).session_id
    user, answer = store.messages(session_id)
    assert (user.role, user.status, user.content) == ("user", "complete", "Say hello")
    assert {e.stage for e in user.rail_events} == {"input"}  # its verdicts were stored with the read
    assert answer.status == "complete"


async def test_the_model_is_asked_while_the_answers_row_is_being_written(
    service: Any, store: Any, upstream: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The row's write finishes only once the model server has the request: written first, as it was, it
    # would wait the whole 10 s and the turn would fail.
    add_answer = store.add_answer

    def after_the_request(*args: Any, **kwargs: Any) -> int:
        deadline = time.monotonic() + 10
        while not upstream.requests:
            if time.monotonic() > deadline:
                raise AssertionError("the answer's row was written before the model was asked")
            time.sleep(0.005)
        return add_answer(*args, **kwargs)

    monkeypatch.setattr(store, "add_answer", after_the_request)
    events = [e async for e in service.run_turn(TurnRequest(owner="alice", text="Say hello"))]
    assert isinstance(events[-1], TurnDone) and events[-1].status == "complete"
    answer = store.message(events[-1].answer_id)
    assert (answer.role, answer.status, answer.content) == ("assistant", "complete", "Hello there!")


async def test_an_answer_row_that_cannot_be_written_ends_the_turn_and_its_request(
    service: Any, store: Any, upstream: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream.push(Script(answer=["a"] * 5, endless=True, delay_s=0.02))

    def broken(*_: Any, **__: Any) -> int:
        raise OSError("disk full")

    monkeypatch.setattr(store, "add_answer", broken)
    with pytest.raises(OSError, match="disk full"):
        async for _ in service.run_turn(TurnRequest(owner="alice", text="Go on forever")):
            pass
    deadline = time.monotonic() + 10
    while upstream.requests[-1].disconnected is None and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert upstream.requests[-1].disconnected is not None  # the model server was told to stop


async def test_a_turn_stopped_while_its_row_is_written_still_stores_it_interrupted(
    service: Any, store: Any, upstream: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream.push(Script(answer=["a"] * 5, endless=True, delay_s=0.02))
    add_answer = store.add_answer
    writing = threading.Event()
    release = threading.Event()

    def slow(*args: Any, **kwargs: Any) -> int:
        writing.set()
        release.wait(10)
        return add_answer(*args, **kwargs)

    monkeypatch.setattr(store, "add_answer", slow)
    events: list[Any] = []

    async def turn() -> None:
        async for event in service.run_turn(TurnRequest(owner="alice", text="Go on forever")):
            events.append(event)

    task = asyncio.create_task(turn())
    while not writing.is_set():
        await asyncio.sleep(0.005)
    task.cancel()
    await asyncio.sleep(0.05)
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    session_id = next(e for e in events if isinstance(e, SessionReady)).session_id
    user, answer = store.messages(session_id)
    assert (answer.role, answer.status) == ("assistant", "interrupted")
