"""The upstream's streamed chat completion, read lean: raw body pieces split into `data:` payloads by hand.

Every answer word crosses this code, and at 16 concurrent streams reading the upstream was the largest share
of the app's CPU: httpx's `aiter_lines` passes each piece through a decoder, a text decoder and a line
decoder on top of httpcore's stream, and the openai SDK's stream builds a typed model per chunk. Here the
raw bytes are split at newlines (a newline is never inside a UTF-8 sequence) and each payload goes to
`json.loads` as bytes, once. httpx stays underneath: it owns the connection pool, timeouts, TLS and proxies.

The payloads of one raw piece come out together, so what arrived together is filtered and sent on together.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import httpx

from webapp.upstream.wire import Delta, StreamResult, ThinkTags, UpstreamError, deltas_of

DONE = b"[DONE]"
DRAIN_S = 1.0  # how long the end of a body may take to arrive after its `[DONE]`


async def data_payloads(raw: AsyncIterator[bytes]) -> AsyncGenerator[list[bytes], None]:
    """The `data:` payloads of the lines completed by each raw piece (a piece that completes none yields
    nothing). A line cut off by the end of the body is dropped, as server-sent events drop an unfinished
    event: the caller then finds the stream unfinished."""
    buffer = b""
    async for piece in raw:
        buffer += piece
        end = buffer.rfind(b"\n")
        if end == -1:
            continue
        lines, buffer = buffer[:end].split(b"\n"), buffer[end + 1 :]
        payloads = [line[5:].strip() for line in lines if line.startswith(b"data:")]
        if payloads:
            yield payloads


async def delta_batches(raw: AsyncIterator[bytes], result: StreamResult) -> AsyncGenerator[list[Delta], None]:
    """The stream's deltas, a list per raw piece; `result` is filled in from the chunks as they pass."""
    think = ThinkTags()
    payloads = data_payloads(raw)
    async for piece in payloads:
        batch, done = _batch(piece, think, result)
        if batch:
            yield batch
        if done:
            await _drain(payloads)
            break
    if tail := think.flush():
        yield tail
    if result.finish_reason is None:
        # Every complete OpenAI stream names why it ended; without that the reply was cut somewhere.
        raise UpstreamError("The model server ended the reply before finishing it.")


async def _drain(rest: AsyncGenerator[list[bytes], None]) -> None:
    """Read the body's end after `[DONE]` (the chunked body's last, empty chunk): a response read to its end
    leaves its connection to the pool for the next turn, one closed early takes it down (a new connection
    per turn was 2% of the app's CPU). A server that does not end the body soon loses the connection."""
    with contextlib.suppress(TimeoutError, httpx.HTTPError, UpstreamError):
        async with asyncio.timeout(DRAIN_S):
            async for _ in rest:
                pass
    await rest.aclose()


def _batch(payloads: list[bytes], think: ThinkTags, result: StreamResult) -> tuple[list[Delta], bool]:
    """The deltas of one piece's payloads, and whether the stream's `[DONE]` was among them."""
    batch: list[Delta] = []
    for data in payloads:
        if data == DONE:
            return batch, True
        batch += chunk_deltas(_json(data), think, result)
    return batch, False


def chunk_deltas(chunk: Any, think: ThinkTags, result: StreamResult) -> list[Delta]:
    """One parsed chunk: its deltas, with its usage and finish reason noted in `result`."""
    if not isinstance(chunk, dict):
        raise UpstreamError("The model server sent a reply the app cannot read.", detail=repr(chunk)[:200])
    if chunk.get("error"):
        raise UpstreamError(
            "The model server reported an error in the middle of the reply.", detail=str(chunk["error"])
        )
    if usage := chunk.get("usage"):
        result.prompt_tokens = usage.get("prompt_tokens")
        result.completion_tokens = usage.get("completion_tokens")
    found: list[Delta] = []
    for choice in chunk.get("choices") or ():
        found += deltas_of(choice.get("delta"), think)
        if choice.get("finish_reason"):
            result.finish_reason = choice["finish_reason"]
    return found


def _json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError as exc:
        raise UpstreamError(
            "The model server sent a reply the app cannot read.", detail=data[:200].decode(errors="replace")
        ) from exc
