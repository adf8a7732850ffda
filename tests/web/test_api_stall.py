"""A streamed answer whose client stays connected and reads nothing (its socket's buffers full, so the
server's write waits) ends after ``api_stall_s``, as if the client had left: the body is closed, which stops
the pipeline and stores the answer as interrupted. Before, that write waited for as long as the client liked,
holding the turn and its place under the API's turn cap."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from starlette.types import Message

from webapp.web.api.stream import TurnStreamResponse


def test_a_client_that_takes_nothing_ends_the_turn_and_closes_the_body() -> None:
    closed: list[bool] = []
    written: list[Message] = []

    async def body() -> AsyncGenerator[str, None]:
        try:
            while True:
                yield "data: {}\n\n"
        finally:
            closed.append(True)

    async def send(message: Message) -> None:
        written.append(message)
        if len(written) > 3:  # the client's buffers are full from the fourth write on
            await asyncio.Event().wait()

    async def connected() -> Message:
        await asyncio.Event().wait()  # the client never disconnects
        raise AssertionError("unreachable")

    async def run() -> None:
        response = TurnStreamResponse(body(), {}, stall_s=0.05)
        await asyncio.wait_for(response({"type": "http"}, connected, send), timeout=30)

    asyncio.run(run())
    assert closed == [True]
    assert [m["type"] for m in written] == ["http.response.start"] + ["http.response.body"] * 3
    assert all(m.get("more_body", True) for m in written)  # the stream was cut, never finished as complete


def test_a_client_that_reads_slowly_but_steadily_is_served_to_the_end() -> None:
    written: list[Message] = []

    async def body() -> AsyncGenerator[str, None]:
        for _ in range(5):
            yield "data: {}\n\n"

    async def send(message: Message) -> None:
        written.append(message)
        await asyncio.sleep(0)  # each write taken, however many loop turns it takes

    async def connected() -> Message:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def run() -> None:
        await TurnStreamResponse(body(), {}, stall_s=5)({"type": "http"}, connected, send)

    asyncio.run(run())
    assert written[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
    assert len(written) == 7
