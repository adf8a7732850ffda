"""A Gradio queue that keeps a session only as long as its clients behave like the page.

Gradio 6 deletes a session's message queue when the client hangs up on ``/queue/data`` while the server
still waits for the next message, i.e. before it sent ``close_stream``; the session's next stream then fails
mid-body. This fake keeps that one rule and answers each event with a fixed list of messages, over
``httpx.MockTransport``, so a client's protocol handling is tested without a server or a race.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx


class _EventStream(httpx.AsyncByteStream):
    def __init__(self, queue: FakeGradioQueue, session: str, messages: list[dict[str, Any]]) -> None:
        self.queue, self.session, self.messages = queue, session, messages
        self.closed_cleanly = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self.session in self.queue.dropped:
            raise httpx.RemoteProtocolError("peer closed connection without sending complete message body")
        for message in self.messages:
            self.closed_cleanly = message["msg"] == "close_stream"
            yield f"data: {json.dumps(message)}\n\n".encode()

    async def aclose(self) -> None:
        if not self.closed_cleanly:
            self.queue.dropped.add(self.session)


class FakeGradioQueue:
    """``outputs``: per fn index, the ``data`` of each message the event streams (the last completes it)."""

    def __init__(self, outputs: dict[int, list[list[Any]]]) -> None:
        self.outputs = outputs
        self.pending: dict[str, list[int]] = {}
        self.dropped: set[str] = set()

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self._handle)

    def _handle(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/queue/join"):
            body = json.loads(request.content)
            self.pending.setdefault(body["session_hash"], []).append(body["fn_index"])
            return httpx.Response(200, json={"event_id": "e"})
        session = request.url.params["session_hash"]
        fn_index = self.pending[session].pop(0)
        data = self.outputs[fn_index]
        messages = [{"msg": "process_generating", "output": {"data": d}} for d in data[:-1]]
        messages += [{"msg": "process_completed", "success": True, "output": {"data": data[-1]}}]
        messages += [{"msg": "close_stream"}]
        return httpx.Response(200, stream=_EventStream(self, session, messages))
