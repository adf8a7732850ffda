"""A connection must finish its request's headers within a deadline, or it is closed.

uvicorn arms a timeout only once a response is complete (keep-alive, 5 s), and cancels it at the first byte
that arrives: a connection that is opened and sends nothing, or sends a header line every few seconds
(slowloris), is held for as long as its client likes (session 17: 5,000 such sockets were all still open
after 20 s, and would have been after a day). Each costs the server a file descriptor and a few kB; enough of
them exhaust the process's descriptors, and then the app can open no database file, upstream connection or
upload, and accepts no one. uvicorn's own settings do not bound this: ``limit_concurrency`` counts idle
connections too, so idle sockets would turn every real request into a 503, and h11's size limits bound how
much a header may hold, not how long it may take.

So from the moment a connection is idle (made, or its last response complete) its next request's headers must
be complete within ``header_timeout_s``; trickling bytes does not extend it. A request whose headers are in
is the app's business (a streamed answer may last minutes). What this does not bound: a client that opens new
connections faster than the deadline closes them (see SECURITY.md); a body sent slowly is ``bodydeadline``'s.
"""

from __future__ import annotations

from asyncio import TimerHandle
from typing import Any


class HeaderDeadline:
    """A mixin for uvicorn's HTTP protocols (httptools or h11): put it first among the bases."""

    header_timeout_s: float = 10.0
    _header_deadline: TimerHandle | None = None
    loop: Any  # the protocol's own (uvicorn sets it)

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self._arm_header_deadline()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        self._arm_header_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_deadline()
        super().connection_lost(exc)  # type: ignore[misc]

    def _arm_header_deadline(self) -> None:
        self._cancel_header_deadline()
        self._header_deadline = self.loop.call_later(self.header_timeout_s, self._header_deadline_passed)

    def _cancel_header_deadline(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _header_deadline_passed(self) -> None:
        self._header_deadline = None
        cycle: Any = getattr(self, "cycle", None)
        if cycle is not None and not cycle.response_complete:
            return  # its headers are in: a request being answered
        transport: Any = getattr(self, "transport", None)
        if transport is not None and not transport.is_closing():
            transport.close()
