"""HTTP/1.1 by hand over a loopback socket, for attacks no well-behaved client makes (a body sent a byte at a time)."""

from __future__ import annotations

import select
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass
class Answer:
    raw: bytes  # everything the server sent
    closed: bool  # the server closed the connection
    after_s: float  # from the last header byte until the server's first byte (or its close)
    sent: int  # body bytes the client got out before the server answered

    @property
    def status(self) -> int | None:
        parts = self.raw.split(b" ", 2)
        return int(parts[1]) if self.raw.startswith(b"HTTP/") and len(parts) > 1 else None


def request_head(method: str, path: str, port: int, headers: dict[str, str]) -> bytes:
    lines = [
        f"{method} {path} HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def trickle(port: int, head: bytes, pieces: Iterable[bytes], *, every_s: float, limit_s: float) -> Answer:
    """Send ``head``, then each piece ``every_s`` apart, watching for the server's answer all the while; once
    it answers (or the pieces run out), read until it closes or ``limit_s`` passed since the head."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(head)
        start = time.monotonic()
        sent, raw, closed = 0, b"", False
        first: float | None = None

        def read(wait_s: float) -> bool:
            """Read what is there within ``wait_s``; whether the server answered or closed."""
            nonlocal raw, closed, first
            ready, _, _ = select.select([sock], [], [], max(0.0, wait_s))
            if not ready:
                return False
            try:
                data = sock.recv(65536)
            except OSError:
                data = b""
            first = time.monotonic() if first is None else first
            raw += data
            closed = closed or not data
            return True

        for piece in pieces:
            if read(every_s) or time.monotonic() - start > limit_s:
                break
            try:
                sock.sendall(piece)
            except OSError:
                closed = True
                break
            sent += len(piece)
        while not closed and time.monotonic() - start < limit_s:
            read(limit_s - (time.monotonic() - start))
        return Answer(raw, closed, (first or time.monotonic()) - start, sent)
