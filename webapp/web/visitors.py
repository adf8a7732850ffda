"""A server-issued, signed id for each anonymous browser, in an HttpOnly cookie.

A visitor's id decides whose chats they see and whose limits they use, so the browser must not be able to
choose it. The cookie holds ``id.signature`` (HMAC-SHA256 with the app's browser key); the middleware
checks it and hands the id to the app in the ``x-railchat-visitor`` request header, after removing any
copy of that header the client sent. The cookie survives reloads and restarts (the key is kept in the
data folder), so a visitor finds their chats again.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from http.cookies import SimpleCookie

from starlette.types import ASGIApp, Receive, Scope, Send

COOKIE = "railchat-visitor"
HEADER = b"x-railchat-visitor"
MAX_AGE_S = 365 * 24 * 3600


class VisitorIds:
    def __init__(self, secret: str) -> None:
        self._key = hashlib.sha256(b"railchat visitor id\0" + secret.encode()).digest()

    def _sign(self, visitor: str) -> str:
        return hmac.new(self._key, visitor.encode(), hashlib.sha256).hexdigest()[:32]

    def issue(self) -> tuple[str, str]:
        """A new visitor id and the cookie value that proves it."""
        visitor = secrets.token_urlsafe(16)
        return visitor, f"{visitor}.{self._sign(visitor)}"

    def verify(self, value: str | None) -> str | None:
        visitor, _, signature = (value or "").rpartition(".")
        if not visitor or not hmac.compare_digest(signature, self._sign(visitor)):
            return None
        return visitor


def cookie_value(headers: Iterable[tuple[bytes, bytes]], name: str = COOKIE) -> str | None:
    for key, value in headers:
        if key == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # a malformed Cookie header is the client's problem, never a 500
                continue
            if name in jar:
                return jar[name].value
    return None


def set_cookie_header(value: str, *, secure: bool) -> tuple[bytes, bytes]:
    attributes = f"{COOKIE}={value}; Path=/; Max-Age={MAX_AGE_S}; HttpOnly; SameSite=Lax"
    return (b"set-cookie", (attributes + ("; Secure" if secure else "")).encode())


def owner_of(headers: dict[str, str] | None) -> str | None:
    """The owner id of a request the middleware vouched for (None outside demo mode)."""
    visitor = (headers or {}).get(HEADER.decode())
    return f"browser:{visitor}" if visitor else None


class StripVisitorHeader:
    """Outside demo mode nothing issues visitor ids, so no request may claim one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            scope = {**scope, "headers": [(k, v) for k, v in scope["headers"] if k != HEADER]}
        await self.app(scope, receive, send)
