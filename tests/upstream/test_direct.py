"""The app's own streaming connections (``webapp.upstream.direct``) against the httpx path they replace."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

import pytest

from tests.support.scripted_upstream import Script, ScriptedUpstream
from webapp.upstream.client import LLMClient, StreamResult, UpstreamError, UpstreamUnavailable
from webapp.upstream.direct import can_serve


async def answer(client: LLMClient, model: str = "m") -> tuple[str, StreamResult]:
    result = StreamResult()
    deltas = client.stream_chat(
        model, [{"role": "user", "content": "hi"}], sampling={}, extra_body={}, max_tokens=9, result=result
    )
    return "".join([d.text async for d in deltas]), result


@pytest.mark.parametrize(
    "script",
    [
        Script(answer=["Hello", " there", "!"]),
        Script(status=400, error_message="m is not a multimodal model"),
        Script(fail_after=2),
        Script(error_event_after=1),
    ],
    ids=["answer", "refusal", "dropped", "error-event"],
)
async def test_both_paths_give_the_same_answer_or_the_same_error(
    upstream: ScriptedUpstream, script: Script
) -> None:
    outcomes = []
    for direct in (True, False):
        upstream.push(script)
        client = LLMClient(upstream.base_url, direct=direct)
        try:
            text, result = await answer(client, upstream.model)
            outcomes.append((text, result.finish_reason, result.completion_tokens))
        except UpstreamError as exc:
            outcomes.append((type(exc).__name__, exc.user_message, exc.status))
        await client.aclose()
    assert outcomes[0] == outcomes[1]
    assert {r.body["messages"][0]["content"] for r in upstream.requests} == {"hi"}


def test_plain_http_without_a_proxy_is_served_directly(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert can_serve("http://127.0.0.1:8000/v1")
    assert not can_serve("https://api.example.com/v1")  # TLS: httpx
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.internal:3128")
    assert not can_serve("http://vllm.internal:8000/v1")  # a proxy applies: httpx
    monkeypatch.setenv("NO_PROXY", "vllm.internal")
    assert can_serve("http://vllm.internal:8000/v1")


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def serve(handler: Handler) -> tuple[asyncio.Server, str, list[int]]:
    """A bare HTTP server; the list counts its connections."""
    connections: list[int] = []

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        await handler(reader, writer)

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/v1", connections


async def read_request(reader: asyncio.StreamReader) -> None:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
    )
    await reader.readexactly(length)


def sse_body(*words: str) -> bytes:
    events = [{"choices": [{"index": 0, "delta": {"content": w}, "finish_reason": None}]} for w in words]
    events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events) + b"data: [DONE]\n\n"


async def test_a_pooled_connection_the_server_dropped_is_not_the_end_of_the_turn() -> None:
    async def answer_once_then_hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        body = sse_body("one ")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        await writer.drain()
        writer.close()  # keep-alive was not refused: the client pools a connection that is now gone

    server, url, connections = await serve(answer_once_then_hang_up)
    client = LLMClient(url)
    async with server:
        assert (await answer(client))[0] == "one "
        assert (await answer(client))[0] == "one "
    assert len(connections) == 2
    await client.aclose()


async def test_an_upstream_that_stops_sending_times_out_as_unavailable() -> None:
    async def stall(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        body = b"data: " + json.dumps({"choices": [{"delta": {"content": "a "}}]}).encode() + b"\n\n"
        writer.write(b"%x\r\n%s\r\n" % (len(body), body))
        await writer.drain()
        await asyncio.sleep(5)

    server, url, _ = await serve(stall)
    client = LLMClient(url, timeout_s=0.2)
    async with server:
        with pytest.raises(UpstreamUnavailable, match="stopped answering"):
            await answer(client)
    await client.aclose()


async def test_a_broken_response_head_is_unavailable_not_a_crash() -> None:
    async def garbage(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"NOT HTTP AT ALL\r\n\r\n")
        await writer.drain()
        writer.close()

    server, url, _ = await serve(garbage)
    client = LLMClient(url)
    async with server:
        with pytest.raises(UpstreamUnavailable, match="unavailable right now"):
            await answer(client)
    await client.aclose()


async def test_nothing_listening_is_unavailable() -> None:
    server, url, _ = await serve(read_request)  # type: ignore[arg-type]
    server.close()
    await server.wait_closed()
    client = LLMClient(url)
    with pytest.raises(UpstreamUnavailable, match="unavailable right now"):
        await answer(client)
    await client.aclose()
