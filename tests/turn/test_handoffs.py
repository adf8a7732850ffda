"""A new chat's first word waits for as few thread hand-offs to the store as the steps need: the chat with
its first message, then the input's verdicts with the transcript read back."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

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
