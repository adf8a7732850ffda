"""A chat's first word waits for as few thread hand-offs to the store as the steps need: one, the chat (or the
owner's check) with the first message and the transcript read back; the input's verdicts and the answer's row
are written while the model is asked, and the turn ends only once they are stored."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.scripted_upstream import Script
from webapp.turn.events import ContextInfo, SessionReady, TurnDone, TurnRequest


async def _awaited_hand_offs(
    service: Any, request: TurnRequest, monkeypatch: pytest.MonkeyPatch
) -> list[Any]:
    """The turn's events, with the names of the store hand-offs awaited before the context as a list just
    before its `ContextInfo`."""
    awaited: list[str] = []
    to_thread = asyncio.to_thread

    def counting(fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        name = getattr(fn, "__name__", repr(fn))

        async def hand_off() -> Any:
            result = await to_thread(fn, *args, **kwargs)
            awaited.append(name)
            return result

        return hand_off()

    monkeypatch.setattr(asyncio, "to_thread", counting)
    events: list[Any] = []
    async for event in service.run_turn(request):
        if isinstance(event, ContextInfo):
            events.append(list(awaited))
        events.append(event)
    monkeypatch.undo()
    return events


def _blocked_until(condition: Callable[[], bool], write: Callable[..., Any]) -> Callable[..., Any]:
    """``write``, made to wait until ``condition`` holds (at most 10 s, then it fails the turn)."""

    def waiting(*args: Any, **kwargs: Any) -> Any:
        deadline = time.monotonic() + 10
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError("the write was awaited before the model was asked")
            time.sleep(0.005)
        return write(*args, **kwargs)

    return waiting


async def test_a_new_text_chat_reaches_the_model_after_one_store_hand_off(
    service: Any, store: Any, upstream: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The verdicts' write finishes only once the model server has the request: awaited before it, the turn
    # would wait 10 s and fail.
    monkeypatch.setattr(
        store, "add_rail_events", _blocked_until(lambda: bool(upstream.requests), store.add_rail_events)
    )
    events = await _awaited_hand_offs(service, TurnRequest(owner="alice", text="Say hello"), monkeypatch)
    before_context = next(e for e in events if isinstance(e, list))
    assert before_context == ["create"]
    assert isinstance(events[-1], TurnDone) and events[-1].status == "complete"
    session_id = next(e for e in events if isinstance(e, SessionReady)).session_id
    user, answer = store.messages(session_id)
    assert (user.role, user.status, user.content) == ("user", "complete", "Say hello")
    assert {e.stage for e in user.rail_events} == {"input"}  # stored before the turn ended
    assert answer.status == "complete"


async def test_a_message_in_a_stored_chat_reaches_the_model_after_one_store_hand_off(
    service: Any, store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = [e async for e in service.run_turn(TurnRequest(owner="alice", text="Say hello"))]
    session_id = next(e for e in first if isinstance(e, SessionReady)).session_id
    request = TurnRequest(owner="alice", text="Say it again", session_id=session_id)
    events = await _awaited_hand_offs(service, request, monkeypatch)
    assert next(e for e in events if isinstance(e, list)) == ["_continue_session"]
    assert isinstance(events[-1], TurnDone) and events[-1].status == "complete"
    messages = store.messages(session_id)
    assert [m.content for m in messages if m.role == "user"] == ["Say hello", "Say it again"]
    assert {e.stage for e in messages[2].rail_events} == {"input"}


async def test_a_turn_stopped_before_the_model_is_asked_keeps_its_input_verdicts(
    service: Any, store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The client goes away at the context (before the answer's row): the verdicts' write, still under way,
    # is waited for, not abandoned.
    release = threading.Event()
    monkeypatch.setattr(store, "add_rail_events", _blocked_until(release.is_set, store.add_rail_events))
    events: list[Any] = []
    async with contextlib.aclosing(service.run_turn(TurnRequest(owner="alice", text="Say hello"))) as turn:
        async for event in turn:
            events.append(event)
            if isinstance(event, ContextInfo):
                threading.Timer(0.2, release.set).start()
                break
    session_id = next(e for e in events if isinstance(e, SessionReady)).session_id
    (user,) = store.messages(session_id)
    assert release.is_set()  # the turn's end waited for the write
    assert {(e.stage, e.decision) for e in user.rail_events} == {("input", "allow")}


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
