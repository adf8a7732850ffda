"""A request's body must keep arriving, or the request is answered 408 and its connection closed.

The header deadline (``headerdeadline``) ends when a request's headers are in; from then on uvicorn waits for
the body as long as its client likes. A client that declares a large body (an upload may be 80 MiB) and sends
a byte every few seconds, or a chunked body that never ends, held its connection, its request's task and the
buffers of the route reading it for hours (session 18: 1 byte every 2 s kept a `/gradio_api/upload` open for
as long as the test ran). Enough of them exhaust file descriptors, like idle sockets did.

So, like Apache's ``mod_reqtimeout`` (``body=...,MinRate=...``): a body must have arrived in full within
``timeout_s`` of the route's first read, plus one second for every ``min_rate`` bytes that arrived. A real
upload is never cut by it (on loopback a few MB take milliseconds; over a slow link every 8 KiB buys a second),
a trickle is: bytes that only frame a chunked body (sizes, extensions, trailers) buy nothing. When it passes,
the app's ``receive`` answers ``http.disconnect`` (the route gives up as if the client had left), and the client
gets a 408 with ``Connection: close`` (uvicorn then closes the connection), unless the route had begun its
answer. Measured on the event loop's clock, which is the one the deadline waits on, from the first read: time
the server takes before it reads (a queue, a lock) is not the client's (uvicorn stops reading the socket
meanwhile, so a trickle costs nothing then).

What it does not bound: a client that keeps just above ``min_rate``; it holds its connection at most for the
route's body cap divided by the rate, and pays that bandwidth for it. A route that never reads its body is
not waited for by the server either: once the route has answered, the header deadline closes the connection.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import anyio

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOO_SLOW = b"The request body arrived too slowly; the connection is closed."


class BodyDeadline:
    """ASGI middleware: a request body arrives by its deadline (see the module's docstring), or 408."""

    def __init__(self, app: ASGIApp, *, timeout_s: float, min_rate: float) -> None:
        self.app = app
        self.timeout_s = timeout_s
        self.min_rate = min_rate  # bytes a second that each buy one more second

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = _Request(receive, send, timeout_s=self.timeout_s, min_rate=self.min_rate)
        try:
            await self.app(scope, request.receive, request.send)
        except Exception as error:
            if not request.late:
                raise
            # The route gave up when told its client left (Starlette raises ClientDisconnect): that is the
            # point, not a fault. Logged whole, each trickled request left ~100 lines of traceback in the log.
            # The path as a repr: it is the client's, percent-decoded, and may hold a line break.
            log.warning(
                "A request body arrived too slowly: 408 (%s %r; %s)",
                scope.get("method"),
                scope.get("path"),
                type(error).__name__,
            )


class _Request:
    """One request's ``receive`` and ``send`` as the route sees them, under its body's deadline."""

    def __init__(self, receive: Receive, send: Send, *, timeout_s: float, min_rate: float) -> None:
        self._receive = receive
        self._send = send
        self.timeout_s = timeout_s
        self.min_rate = min_rate
        self.deadline: float | None = None  # set at the route's first read
        self.body_done = False
        self.started = False  # an answer began
        self.late = False

    async def receive(self) -> Message:
        if self.late:
            return {"type": "http.disconnect"}
        if self.body_done:
            return await self._receive()
        if self.deadline is None:
            self.deadline = anyio.current_time() + self.timeout_s
        with anyio.move_on_after(self.deadline - anyio.current_time()):
            message = await self._receive()
            if message["type"] == "http.request":
                self.deadline += len(message.get("body", b"")) / self.min_rate
                self.body_done = not message.get("more_body", False)
            else:
                self.body_done = True  # the client left: nothing more to wait for
            return message
        self.late = True
        if not self.started:
            await self._too_slow()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        if self.late:
            return  # the 408 went out (or the client was cut mid-answer): the route's answer has nowhere to go
        if message["type"] == "http.response.start":
            self.started = True
        await self._send(message)

    async def _too_slow(self) -> None:
        self.started = True
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(TOO_SLOW)).encode()),
            (b"connection", b"close"),
        ]
        await self._send({"type": "http.response.start", "status": 408, "headers": headers})
        await self._send({"type": "http.response.body", "body": TOO_SLOW})
