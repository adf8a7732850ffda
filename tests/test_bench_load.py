"""The load benchmark's users are browsers: a user's events never run in another user's Gradio session."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from bench.clients import GradioSubmit, Turn, gradio_turn
from bench.load import run_level
from tests.support.live_app import LiveApp, live_app
from tests.support.scripted_upstream import ScriptedUpstream

ANSWER = "Hello there!"  # the scripted upstream's default answer


@pytest.fixture
def app(tmp_path: Any, upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveApp]:
    with live_app(tmp_path, upstream, monkeypatch) as live:
        live.service.guard.checks.moderator.wait_ready(300)  # type: ignore[attr-defined]  # the answer's check needs the model
        yield live


async def test_two_users_starting_together_each_read_their_own_event_stream(app: LiveApp) -> None:
    """Both users' first joins are answered (each issued a browser id in a cookie) before either opens its
    event stream, as happens under load: a user that sent another's id read a session Gradio never had."""
    async with httpx.AsyncClient(timeout=30) as client:
        submit = await GradioSubmit.discover(client, app.url)
    joined = 0
    both_joined = asyncio.Event()

    async def hold_first_joins(response: httpx.Response) -> None:
        nonlocal joined
        if response.request.url.path.endswith("/queue/join") and joined < 2:
            joined += 1
            if joined == 2:
                both_joined.set()
            await both_joined.wait()

    async def turn(client: httpx.AsyncClient) -> Turn:
        client.event_hooks = {"response": [hold_first_joins]}
        return await gradio_turn(client, submit, "Hi", ANSWER)

    turns, _ = await asyncio.wait_for(run_level(turn, 2, 1), timeout=120)
    assert joined == 2
    assert [(t.complete, t.error) for t in turns] == [(True, None), (True, None)]
