"""Watch for outbound traffic without letting any leave the machine.

`EgressLog.install()` points HTTP(S)_PROXY at a loopback proxy that records each request line and answers
502, and replaces `socket.getaddrinfo` so any name other than loopback is recorded and fails to resolve.
A test then asserts the log is empty: the app tried to fetch nothing.
"""

from __future__ import annotations

import socket
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1", "testserver", None}


class _ProxyHandler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        line = self.rfile.readline(4096).decode("latin-1").strip()
        self.server.log.append(f"proxy {line}")  # type: ignore[attr-defined]
        self.wfile.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


class EgressLog:
    def __init__(self) -> None:
        self.attempts: list[str] = []

    @contextmanager
    def install(self, monkeypatch: pytest.MonkeyPatch) -> Iterator[EgressLog]:
        server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _ProxyHandler)
        server.daemon_threads = True
        server.log = self.attempts  # type: ignore[attr-defined]
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        proxy = f"http://127.0.0.1:{server.server_address[1]}"
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            monkeypatch.setenv(name, proxy)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
        monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
        real = socket.getaddrinfo

        def guarded(host: Any, *args: Any, **kwargs: Any) -> Any:
            name = host.decode() if isinstance(host, bytes) else host
            if name not in LOOPBACK_NAMES:
                self.attempts.append(f"resolve {name}")
                raise socket.gaierror(socket.EAI_NONAME, "resolution refused in tests")
            return real(host, *args, **kwargs)

        monkeypatch.setattr(socket, "getaddrinfo", guarded)
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()
