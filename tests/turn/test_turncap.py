"""The cap on API turns at once, without a server (the HTTP side: tests/web/test_api_turn_cap.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import pytest

from webapp.turn.admission import Refused, chain
from webapp.turn.events import TurnRequest
from webapp.turn.turncap import TurnCap


def api(owner: str) -> TurnRequest:
    return TurnRequest(owner=owner, text="hello", client="api")


async def refusal_code(cap: TurnCap, request: TurnRequest) -> str:
    with pytest.raises(Refused) as refused:
        async with cap(request):
            pass
    return refused.value.code


def test_per_owner_then_total_and_every_turn_given_back_however_it_ends() -> None:
    async def run() -> None:
        cap = TurnCap(total=3, per_owner=2)
        async with AsyncExitStack() as held:
            for owner in ("alice", "alice", "bob"):
                await held.enter_async_context(cap(api(owner)))
            assert await refusal_code(cap, api("alice")) == "too_many_turns"
            assert await refusal_code(cap, api("carol")) == "server_busy"
        with pytest.raises(RuntimeError):
            async with cap(api("alice")):
                raise RuntimeError("the turn failed")
        assert not cap.running

    asyncio.run(run())


def test_ui_turns_are_not_counted() -> None:
    async def run() -> None:
        cap = TurnCap(total=1, per_owner=1)
        async with cap(api("alice")), cap(TurnRequest(owner="alice", text="hi", client="ui")):
            assert cap.running == {"alice": 1}

    asyncio.run(run())


def test_a_chained_admission_is_asked_after_the_cap_and_not_when_the_cap_refuses() -> None:
    asked: list[str] = []

    @asynccontextmanager
    async def demo(request: TurnRequest) -> AsyncIterator[None]:
        asked.append(request.owner)
        yield

    async def run() -> None:
        cap = TurnCap(total=1, per_owner=1)
        both = chain(chain(None, cap), demo)
        async with both(api("alice")):
            with pytest.raises(Refused):
                async with both(api("bob")):
                    pass
        assert asked == ["alice"] and not cap.running

    asyncio.run(run())


def test_without_keys_the_one_owner_is_capped_by_the_total_and_no_key_is_named() -> None:
    async def run() -> None:
        cap = TurnCap(total=2, per_owner=None)
        async with cap(api("loopback")), cap(api("loopback")):
            with pytest.raises(Refused) as refused:
                async with cap(api("loopback")):
                    pass
        assert refused.value.code == "server_busy"
        assert "API key" not in str(refused.value)

    asyncio.run(run())
