"""Streamed chat completions over HTTP/1.1 connections of the app's own, parsed by h11.

Why not httpx for this one request (it serves every other one, and this one too when the upstream is https
or behind a proxy): each chunk of a streamed answer crossed about ten layers of httpx, httpcore and anyio
(a generator per layer, a cancel scope per read), ~110 us of CPU per chunk and the largest share of the
app's CPU at 16 streams. Here one socket read feeds h11 (httpcore's own parser) and every body byte it
completes comes out as one piece: ~50 us per chunk, and chunks that arrived together are one piece, which
the pipeline then filters and sends on together.

What httpx gave and this keeps: a connect timeout and a read timeout; a connection is reused only when its
response was read to the end (a stream closed early closes its connection: that is how the model server
learns to stop generating); an idle connection the server may have dropped is not reused, and a request
that met a dropped pooled connection before any answer is sent once more on a new one. Errors are httpx's
exception types, so the client handles both paths alike.
"""

from __future__ import annotations

import asyncio
import time
import urllib.parse
import urllib.request
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import h11
import httpx

READ_SIZE = 2**16
# An idle connection older than this is closed, not reused: servers drop idle ones (uvicorn, which vLLM
# runs on, after 5 s) and a request sent as that happens would be lost.
IDLE_S = 2.0


def can_serve(base_url: str) -> bool:
    """Plain http to a host no proxy of the environment applies to (else httpx, which knows TLS and
    proxies, streams the answer)."""
    url = urllib.parse.urlsplit(base_url)
    if url.scheme != "http" or not url.hostname:
        return False
    proxies = urllib.request.getproxies()
    return not (proxies.get("http") or proxies.get("all")) or bool(urllib.request.proxy_bypass(url.hostname))


@dataclass
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    protocol: h11.Connection = field(default_factory=lambda: h11.Connection(h11.CLIENT))
    idle_since: float = 0.0

    def close(self) -> None:
        self.writer.close()

    @property
    def reusable(self) -> bool:
        return self.protocol.our_state is h11.DONE and self.protocol.their_state is h11.DONE


class DirectStreams:
    """Keep-alive connections to one upstream origin for streamed POSTs."""

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str],
        *,
        connect_timeout_s: float,
        read_timeout_s: float,
        keep: int,
    ) -> None:
        url = urllib.parse.urlsplit(base_url)
        self._host, self._port = url.hostname or "", url.port or 80
        self._base_path = url.path.rstrip("/")
        self._headers = [("Host", url.netloc), ("User-Agent", "railchat"), *headers.items()]
        self._connect_timeout_s = connect_timeout_s
        self._read_timeout_s = read_timeout_s
        self._keep = keep
        self._idle: list[_Connection] = []

    def close(self) -> None:
        while self._idle:
            self._idle.pop().close()

    @asynccontextmanager
    async def post(
        self, path: str, body: bytes, headers: Mapping[str, str]
    ) -> AsyncGenerator[tuple[int, AsyncIterator[bytes]], None]:
        """POST to `path` under the base URL: the response's status and its body as it arrives, in pieces.
        Leaving the block before the body ended closes the connection."""
        connection, status = await self._request(self._base_path + path, body, headers)
        pieces = self._pieces(connection)
        try:
            yield status, pieces
        finally:
            await pieces.aclose()
            if connection.reusable and len(self._idle) < self._keep:
                connection.protocol.start_next_cycle()
                connection.idle_since = time.monotonic()
                self._idle.append(connection)
            else:
                connection.close()

    async def _request(self, target: str, body: bytes, headers: Mapping[str, str]) -> tuple[_Connection, int]:
        connection, reused = await self._connection()
        try:
            return connection, await self._send(connection, target, body, headers)
        except (httpx.ReadError, httpx.RemoteProtocolError, httpx.WriteError):
            connection.close()
            if not reused:
                raise
        except BaseException:  # a timeout, or the caller went away: the connection is in an unknown state
            connection.close()
            raise
        # The server dropped the pooled connection before answering: it never read this request.
        connection, _ = await self._connection(fresh=True)
        try:
            return connection, await self._send(connection, target, body, headers)
        except BaseException:
            connection.close()
            raise

    async def _connection(self, *, fresh: bool = False) -> tuple[_Connection, bool]:
        now = time.monotonic()
        while self._idle and not fresh:
            connection = self._idle.pop()
            if now - connection.idle_since < IDLE_S and not connection.reader.at_eof():
                return connection, True
            connection.close()
        try:
            async with asyncio.timeout(self._connect_timeout_s):
                reader, writer = await asyncio.open_connection(self._host, self._port, limit=READ_SIZE)
        except TimeoutError as exc:
            raise httpx.ConnectTimeout(f"no connection to {self._host}:{self._port} in time") from exc
        except OSError as exc:
            raise httpx.ConnectError(f"cannot connect to {self._host}:{self._port}: {exc}") from exc
        return _Connection(reader, writer), False

    async def _send(
        self, connection: _Connection, target: str, body: bytes, headers: Mapping[str, str]
    ) -> int:
        """Send the request; read up to the response's head. Returns its status."""
        protocol = connection.protocol
        head = [*self._headers, *headers.items(), ("Content-Length", str(len(body)))]
        data = protocol.send(h11.Request(method="POST", target=target, headers=head))
        connection.writer.write(data + (protocol.send(h11.Data(data=body)) or b""))
        connection.writer.write(protocol.send(h11.EndOfMessage()) or b"")
        try:
            async with asyncio.timeout(self._read_timeout_s):
                await connection.writer.drain()
        except TimeoutError as exc:
            raise httpx.WriteTimeout("the model server did not take the request in time") from exc
        except OSError as exc:
            raise httpx.WriteError(str(exc)) from exc
        while not isinstance(event := await self._next_event(connection), h11.Response):
            pass  # an informational response (100 Continue) comes before the real one
        return event.status_code

    async def _pieces(self, connection: _Connection) -> AsyncGenerator[bytes, None]:
        """The body: what one socket read completed, as one piece."""
        while True:
            event: h11.Event | type[h11.NEED_DATA] = await self._next_event(connection)
            pieces = []
            while isinstance(event, h11.Data):
                pieces.append(event.data)
                event = _buffered_event(connection)
            if pieces:
                yield b"".join(pieces)
            if isinstance(event, h11.EndOfMessage):
                return

    async def _next_event(self, connection: _Connection) -> h11.Event:
        """The next event, reading from the socket as long as h11 needs more."""
        while True:
            event = _buffered_event(connection)
            if event is not h11.NEED_DATA:
                return event  # type: ignore[return-value]  # NEED_DATA is a class, not an event
            connection.protocol.receive_data(await self._read(connection))

    async def _read(self, connection: _Connection) -> bytes:
        try:
            async with asyncio.timeout(self._read_timeout_s):
                return await connection.reader.read(READ_SIZE)
        except TimeoutError as exc:
            raise httpx.ReadTimeout("the model server sent nothing in time") from exc
        except OSError as exc:
            raise httpx.ReadError(str(exc)) from exc


def _buffered_event(connection: _Connection) -> h11.Event | type[h11.NEED_DATA]:
    """The next event from what was read so far (NEED_DATA: read more)."""
    try:
        event = connection.protocol.next_event()
    except h11.RemoteProtocolError as exc:
        raise httpx.RemoteProtocolError(f"the model server broke the HTTP protocol: {exc}") from exc
    if event is h11.PAUSED or isinstance(event, h11.ConnectionClosed):
        raise httpx.RemoteProtocolError("the model server closed the connection before it answered")
    return event  # type: ignore[return-value]  # PAUSED was refused above
