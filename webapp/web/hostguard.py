"""Keep web pages from driving an app that listens on loopback (DNS rebinding, cross-site requests).

A browser will send requests to 127.0.0.1 on behalf of any page it shows. Two things stop that page:
- DNS rebinding makes `attacker.example` resolve to 127.0.0.1, so the page's requests are same-origin for
  the browser, but they carry `Host: attacker.example`. An app bound to loopback answers loopback names only.
- A plain cross-site request (a form, `fetch` with `mode: "no-cors"` and `Content-Type: text/plain`) needs
  no CORS preflight, but carries the page's `Origin` (or `Sec-Fetch-Site: cross-site`). A state-changing
  request from another origin is refused, and the JSON APIs take JSON only, which a page cannot send
  cross-site without a preflight this app never grants.
A request with two `Host` headers is refused (HTTP requires a 400): servers and proxies disagree on which one
counts, so a check that reads one while the app or a proxy reads the other is no check. (A host named in an
absolute request target is the `Host` by then: webapp/web/requestline.py.)
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from webapp.web.auth import is_loopback

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
JSON_PREFIXES = ("/v1/", "/api/")  # our own JSON APIs: the OpenAI-compatible one and the reviewer API


class HostGuard:
    """ASGI middleware: loopback `Host` only (when ``loopback_only``), no cross-site writes, JSON for the APIs."""

    def __init__(self, app: ASGIApp, *, loopback_only: bool) -> None:
        self.app = app
        self.loopback_only = loopback_only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        refusal = self.refusal(scope, headers)
        if refusal is not None:
            status, code, message = refusal
            await _refuse(scope, send, status, code, message)
            return
        await self.app(scope, receive, send)

    def refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str, str] | None:
        if sum(1 for name, _ in scope.get("headers", []) if name.lower() == b"host") > 1:
            return 400, "duplicate_host", "A request names its host once (one Host header)."
        host = headers.get("host", "")
        if self.loopback_only and not is_loopback(_hostname(host)):
            return 421, "untrusted_host", "This server answers only on its loopback address."
        method = scope.get("method", "GET")
        if scope["type"] == "websocket" or method not in SAFE_METHODS:
            if _cross_site(headers, host):
                return 403, "cross_site_request", "Requests from other sites are not accepted."
        path = scope.get("path", "")
        if method not in SAFE_METHODS and path.startswith(JSON_PREFIXES):
            content_type = headers.get("content-type", "").split(";")[0].strip().lower()
            if content_type != "application/json" and not content_type.endswith("+json"):
                return 415, "json_required", "Send the request body as JSON (Content-Type: application/json)."
        return None


def _headers(scope: Scope) -> dict[str, str]:
    # Duplicate headers: any foreign Origin is kept (two Hosts are refused before this is read).
    found: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", []):
        name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
        if name in ("origin", "sec-fetch-site") and name in found:
            found[name] = found[name] + "," + value
        else:
            found.setdefault(name, value)
    return found


def _hostname(host: str) -> str:
    """`Host` header -> bare name: `[::1]:7860` -> `::1`, `LocalHost.:80` -> `localhost`. Anything else after
    the name than a numeric port (`localhost:7860@evil.example`) makes the whole value the name."""
    host = host.strip().lower()
    if host.startswith("["):
        name, _, port = host[1:].partition("]")
        return name if port == "" or (port.startswith(":") and port[1:].isdigit()) else ""
    name, colon, port = host.rpartition(":")
    if colon and port.isdigit() and ":" not in name:
        host = name
    return host.rstrip(".")


def _cross_site(headers: dict[str, str], host: str) -> bool:
    if any(v.strip() == "cross-site" for v in headers.get("sec-fetch-site", "").split(",")):
        return True
    origins = [o.strip() for o in headers.get("origin", "").split(",") if o.strip()]
    return any(_origin_host(o) != host.strip().lower() for o in origins)


def _origin_host(origin: str) -> str:
    if origin == "null":  # sandboxed frames, file: pages, some redirects
        return "\x00null"
    parts = urlsplit(origin.lower())
    return parts.netloc


async def _refuse(scope: Scope, send: Send, status: int, code: str, message: str) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008})
        return
    body = json.dumps({"error": {"message": message, "type": "invalid_request_error", "code": code}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
