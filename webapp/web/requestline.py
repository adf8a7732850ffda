"""The host a request names in its request line wins over its `Host` header, as HTTP says.

A request target may be absolute (`GET http://attacker.example/ HTTP/1.1`); the server must then ignore the
`Host` header and use the target's host (RFC 9112, 3.2.2). uvicorn's httptools parser keeps only the target's
path, so the host guard judged such a request by a `Host: 127.0.0.1` the target overrides and served it. This
protocol writes the target's authority into the `Host` header (replacing any) before the app sees the request,
so every check that reads `Host` reads the host the request is for. No browser sends the absolute form; a proxy
or a hand-written client does. (uvicorn's h11 parser keeps the whole target as the path, which routes
nowhere, so without httptools nothing is needed.)
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from webapp.web.headerdeadline import HeaderDeadline


def target_authority(target: bytes) -> bytes | None:
    """The authority of an absolute-form request target (its `host[:port]`), else None (origin form `/path`,
    asterisk form `*`). An absolute target without one (`http:///x`) names the empty host."""
    if target.startswith(b"/") or target == b"*":
        return None
    parts = urlsplit(target.decode("latin-1"))
    if not parts.scheme:
        return None  # authority form (CONNECT) or garbage: the parser refuses those itself
    return parts.netloc.rpartition("@")[2].encode("latin-1")


def http_protocol(*, header_timeout_s: float | None = None) -> Any:
    """uvicorn's `http` setting: its httptools protocol reading absolute targets' hosts (else h11's), closing a
    connection whose request headers take longer than ``header_timeout_s`` (``headerdeadline``; None: never)."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # httptools is optional; uvicorn then parses with h11
        return _with_deadline("h11", header_timeout_s)

    class AbsoluteTargetProtocol(HttpToolsProtocol):
        def on_headers_complete(self) -> None:
            authority = target_authority(self.url)
            if authority is not None:
                # In place: the request's scope holds this very list.
                self.headers[:] = [(k, v) for k, v in self.headers if k != b"host"] + [(b"host", authority)]
            super().on_headers_complete()

    return _with_deadline(AbsoluteTargetProtocol, header_timeout_s)


def _with_deadline(protocol: Any, header_timeout_s: float | None) -> Any:
    if header_timeout_s is None:
        return protocol
    if protocol == "h11":
        from uvicorn.protocols.http.h11_impl import H11Protocol

        protocol = H11Protocol
    return type(protocol.__name__, (HeaderDeadline, protocol), {"header_timeout_s": header_timeout_s})
