"""Stored history is checked again every turn, and a message that fails today is left out, not the whole chat.

Before: the whole stored history was one input-rail text, so one message that fails now (an allowlist narrowed
since, a new rule, a false positive) blocked every later turn of the chat for ever.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.scripted_upstream import Script
from tests.support.service import make_service
from webapp.guard.verdicts import RailOutcome
from webapp.turn.events import Notice, TurnDone, TurnRequest
from webapp.turn.recheck import HISTORY_STAGE

EVIL = "evil.example"


async def turn(service, text: str, session_id: str | None = None, owner: str = "alice") -> list[Any]:
    request = TurnRequest(owner=owner, text=text, session_id=session_id)
    return [e async for e in service.run_turn(request)]


def status(events) -> str:
    last = events[-1]
    assert isinstance(last, TurnDone)
    return last.status


def notices(events) -> list[Notice]:
    return [e for e in events if isinstance(e, Notice)]


def old_chat(store, *, user: str, answer: str = "Noted.", model: str | None = "m") -> str:
    """A stored chat whose first exchange passed the rails of its day."""
    session_id = store.create_session(owner="alice", client="api", model="m", title="t")
    store.add_message(session_id, role="user", content=user, mode="instant")
    store.add_message(session_id, role="assistant", content=answer, mode="instant", model=model)
    return session_id


async def test_a_stored_message_that_fails_today_is_left_out_and_the_chat_goes_on(
    service, store, upstream
) -> None:
    session_id = old_chat(store, user=f"remember https://{EVIL}/x and the number 42")
    events = await turn(service, "what number did I say?", session_id)
    assert status(events) == "complete"  # before: "blocked", on this turn and every later one
    assert [n.code for n in notices(events)] == ["history_left_out"]
    assert EVIL not in json.dumps(upstream.chat_bodies[-1]) and "Noted." not in json.dumps(
        upstream.chat_bodies[-1]
    )
    first = store.messages(session_id)[0]
    assert [(e.stage, e.decision, e.rail) for e in first.rail_events] == [
        (HISTORY_STAGE, "block", "url_allowlist")
    ]
    assert first.status == "complete" and first.content.startswith("remember")  # the chain is not rewritten

    again = await turn(service, "and now?", session_id)  # left out for good: no new notice, still not sent
    assert status(again) == "complete" and notices(again) == []
    assert EVIL not in json.dumps(upstream.chat_bodies[-1])
    assert "what number did I say?" in json.dumps(upstream.chat_bodies[-1])  # the chat's later turns are sent


async def test_an_answer_the_app_produced_is_judged_by_the_output_rails(store, guard, upstream) -> None:
    """Input rules are written for users: an answer that passed the output rails is judged by those again."""
    service = make_service(store, InputOnlyRule(guard, "RULE-FOR-USERS"), upstream)
    upstream.push(Script(answer=["Sure: RULE-FOR-USERS is what the manual calls it."]))
    first = await turn(service, "what does the manual call it?")
    session_id = first[0].session_id
    second = await turn(service, "thanks, go on", session_id)
    assert status(second) == "complete" and notices(second) == []
    assert "RULE-FOR-USERS is what the manual" in json.dumps(upstream.chat_bodies[-1])


async def test_a_client_resent_answer_is_client_text_and_passes_the_input_rails(
    store, guard, upstream
) -> None:
    service = make_service(store, InputOnlyRule(guard, "RULE-FOR-USERS"), upstream)
    session_id = old_chat(store, user="hi", answer="RULE-FOR-USERS", model=None)  # stored as a client sent it
    events = await turn(service, "go on", session_id)
    assert status(events) == "complete" and [n.code for n in notices(events)] == ["history_left_out"]
    assert "RULE-FOR-USERS" not in json.dumps(upstream.chat_bodies[-1])


async def test_messages_that_fail_only_together_are_left_out_of_the_turn(store, guard, upstream) -> None:
    service = make_service(store, InputOnlyRule(guard, "PART-A", also="PART-B"), upstream)
    session_id = old_chat(store, user="PART-A")
    store.add_message(session_id, role="user", content="PART-B", mode="instant")
    store.add_message(session_id, role="assistant", content="ok", mode="instant", model="m")
    events = await turn(service, "go on", session_id)
    assert status(events) == "complete" and [n.code for n in notices(events)] == ["history_left_out"]
    sent = json.dumps(upstream.chat_bodies[-1])
    assert "PART-A" not in sent and "PART-B" not in sent
    assert all(not m.rail_events for m in store.messages(session_id)[:4])  # none is blocked on its own


async def test_a_new_message_that_fails_is_still_refused(service, store, upstream) -> None:
    session_id = old_chat(store, user="hello")
    before = len(upstream.requests)
    events = await turn(service, f"open https://{EVIL}/", session_id)
    assert status(events) == "blocked" and len(upstream.requests) == before


class InputOnlyRule:
    """The real rails plus an input rule (blocks ``marker``, or only ``marker`` and ``also`` together)."""

    def __init__(self, guard: Any, marker: str, also: str | None = None) -> None:
        self._guard = guard
        self.marker, self.also = marker, also

    def __getattr__(self, name: str) -> Any:
        return getattr(self._guard, name)

    async def check_input(self, text: str, image_urls: Any = ()) -> list[RailOutcome]:
        if self.marker in text and (self.also is None or self.also in text):
            return [RailOutcome("input", "moderation", "block", "a test rule for users", 0.0)]
        return await self._guard.check_input(text, image_urls)
