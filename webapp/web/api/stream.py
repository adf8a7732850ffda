"""Server-sent events for a streamed answer, and stopping the pipeline when the client goes away.

Starlette cancels a streaming body through an anyio cancel scope, which also cancels every await in the
pipeline's clean-up (the answer would stay "streaming" in the store, the upstream request open). Here the
work runs in a plain asyncio task that is cancelled once on disconnect and then awaited, so the upstream
request is closed and the answer stored as interrupted before the handler returns. `cancel_on_disconnect`
is that race, used for a whole non-streamed answer and for the SSE body alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterable, Coroutine
from contextlib import aclosing
from typing import Any, TypeVar

from fastapi.responses import StreamingResponse
from starlette.types import Message, Receive, Scope, Send

from webapp.turn.events import AnswerDelta, Notice, ReasoningDelta, ToolCallDelta, TurnDone, TurnEvent
from webapp.web.api.response import (
    Completion,
    error_body,
    failure_of,
    finish_reason_of,
    guardrails_of,
    notices_of,
    sse,
    tool_call_delta,
    usage_of,
)

log = logging.getLogger("webapp.web.api")

T = TypeVar("T")


class ClientGone(Exception):
    """The client disconnected before the work finished; the work was cancelled and has cleaned up."""


async def cancel_on_disconnect(receive: Receive, work: Coroutine[Any, Any, T]) -> T:
    """Run `work` (the request body already read); if the client goes away first, cancel it once and wait
    for its clean-up (shielded from a second cancel by running in its own task), then raise ClientGone."""
    job = asyncio.ensure_future(work)
    watch = asyncio.ensure_future(_disconnected(receive))
    try:
        await asyncio.wait({job, watch}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watch.cancel()
        if not job.done():
            job.cancel()
        await asyncio.wait({job})  # its clean-up finishes even if this handler is being cancelled itself
    if job.cancelled() and watch.done() and not watch.cancelled():
        raise ClientGone
    return job.result()


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


class TurnStreamResponse(StreamingResponse):
    """SSE whose body (and with it the pipeline) is cancelled once, cleanly, when the client goes away.

    A client that stays connected and reads nothing is gone too, once one write has waited ``stall_s``: the
    server's write waits while the socket's buffers are full, and would hold the turn (its upstream request,
    its place under the API's cap) for as long as the client liked.
    """

    def __init__(self, body: AsyncGenerator[str, None], headers: dict[str, str], *, stall_s: float) -> None:
        self.chunks = body
        self.stall_s = stall_s
        super().__init__(
            body, headers={**headers, "Cache-Control": "no-cache"}, media_type="text/event-stream"
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        with contextlib.suppress(ClientGone, OSError):  # nobody is listening any more
            await cancel_on_disconnect(receive, self._pump(send))

    async def _pump(self, send: Send) -> None:
        async with aclosing(self.chunks) as chunks:
            await self._send(
                send, {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
            )
            async for chunk in chunks:
                await self._send(
                    send, {"type": "http.response.body", "body": chunk.encode(), "more_body": True}
                )
            await self._send(send, {"type": "http.response.body", "body": b"", "more_body": False})

    async def _send(self, send: Send, message: Message) -> None:
        try:
            async with asyncio.timeout(self.stall_s):
                await send(message)
        except TimeoutError:
            log.warning("a streamed answer's client took nothing for %.0f s: the turn ends", self.stall_s)
            raise ClientGone from None  # the body is closed on the way out: the answer stored as interrupted


async def sse_events(
    events: AsyncIterable[TurnEvent], completion: Completion, include_usage: bool
) -> AsyncGenerator[str, None]:
    """The turn as OpenAI chunks: reasoning, answer and tool-call deltas, then one final chunk (or an error
    event). Notices ride on the final chunk, like the guardrails verdict."""
    notices: list[Notice] = []
    yield completion.chunk({"role": "assistant", "content": ""})
    async for event in events:
        if isinstance(event, ReasoningDelta):
            yield completion.text_chunk("reasoning", event.text)
        elif isinstance(event, AnswerDelta):
            yield completion.text_chunk("content", event.text)
        elif isinstance(event, ToolCallDelta):
            yield completion.chunk({"tool_calls": [tool_call_delta(event)]})
        elif isinstance(event, Notice):
            notices.append(event)
        elif isinstance(event, TurnDone):
            log_turn(event, stream=True)
            yield "".join(_final_chunks(event, completion, include_usage, notices))  # one write, not three
            return


def _final_chunks(
    done: TurnDone, completion: Completion, include_usage: bool, notices: list[Notice]
) -> list[str]:
    if (failure := failure_of(done)) is not None:
        # The client saw part of an answer that was cut: an error event, never a normal finish.
        return [sse(error_body(failure.message, failure.code, failure.status))]
    top: dict[str, Any] = {"notices": notices_of(notices)} if notices else {}
    if done.kind == "rail":  # the refusal as content; with an output block, discard what came before
        top["guardrails"] = guardrails_of(done)
        chunks = [completion.chunk({"content": done.message}, "content_filter", **top)]
    else:
        chunks = [completion.chunk({}, finish_reason_of(done), **top)]
    if include_usage and (usage := usage_of(done)) is not None:
        chunks.append(completion.usage_chunk(usage))
    return [*chunks, "data: [DONE]\n\n"]


async def closing_with(
    body: AsyncGenerator[str, None], events: AsyncGenerator[TurnEvent, None]
) -> AsyncGenerator[str, None]:
    """Closing the SSE body closes the pipeline (cancels the upstream, stores the answer as interrupted)."""
    try:
        async with aclosing(body) as chunks:
            async for chunk in chunks:
                yield chunk
    finally:
        await events.aclose()


def log_turn(done: TurnDone, *, stream: bool) -> None:
    log.info(
        "chat completion %s",
        done.status,
        extra={
            "status": done.status,
            "stream": stream,
            "code": done.code,
            "rail": done.rail.rail if done.rail else None,
            "prompt_tokens": done.prompt_tokens,
            "completion_tokens": done.completion_tokens,
            "ttft_ms": round(done.ttft_ms, 1) if done.ttft_ms is not None else None,
        },
    )
