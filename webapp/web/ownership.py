"""One server-issued, signed id per browser, in an HttpOnly cookie: who an anonymous chatter is, and whose
uploads a request may name.

Every event payload is written by the client, so an owner id taken as sent would let anyone who learns
another browser's id (a shared screen, a log line, an extension) read their chats. The browser therefore
keeps a cookie ``id.signature`` (HMAC-SHA256, keyed from the app's secret in the data folder, so it survives
reloads and restarts) that page scripts cannot read. ``OwnerCookie`` checks it on every request, issues a
fresh one when it is missing, forged or unsigned, and hands the id to the app in the ``x-railchat-browser``
header after removing any copy of that header the client sent. Everything else (the chat list, demo limits,
invites, uploads) reads the id from there, never from an event's data.

A signed-in user (``--auth-file``) owns chats by name; the browser id still binds their uploads.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Mapping
from http.cookies import SimpleCookie
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

OWNER_PREFIX = "browser:"
COOKIE = "railchat-visitor"  # the name demo visitors' cookies already carry: their chats stay theirs
HEADER = b"x-railchat-browser"
MAX_AGE_S = 365 * 24 * 3600


class OwnerIds:
    """Issues browser ids and checks the signature of the cookie that carries one."""

    def __init__(self, secret: str) -> None:
        self._key = hashlib.sha256(b"railchat visitor id\0" + secret.encode()).digest()

    def _sign(self, browser: str) -> str:
        return hmac.new(self._key, browser.encode(), hashlib.sha256).hexdigest()[:32]

    def issue(self) -> tuple[str, str]:
        """A new browser id and the cookie value that proves it."""
        browser = secrets.token_urlsafe(16)
        return browser, f"{browser}.{self._sign(browser)}"

    def verify(self, value: str | None) -> str | None:
        """The browser id a cookie value was issued for, or None if this server did not sign it."""
        browser, _, signature = (value or "").rpartition(".")
        if not browser or not hmac.compare_digest(signature.encode(), self._sign(browser).encode()):
            return None
        return browser


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


def browser_of(headers: Mapping[str, str] | Iterable[tuple[bytes, bytes]] | None) -> str | None:
    """The browser id ``OwnerCookie`` vouched for on this request (from a header mapping or raw ASGI headers)."""
    if headers is None:
        return None
    if isinstance(headers, Mapping):
        return headers.get(HEADER.decode()) or None
    return next((v.decode("latin-1") for k, v in headers if k == HEADER), None) or None


def owner_of(request: Any) -> str | None:
    """Who owns chats in this request: ``user:NAME`` when signed in, else ``browser:ID``, else None."""
    if request is None:
        return None
    username = getattr(request, "username", None)
    if username:
        return f"user:{username}"
    browser = browser_of(dict(getattr(request, "headers", None) or {}))
    return OWNER_PREFIX + browser if browser else None


class OwnerCookie:
    """ASGI middleware: every request carries a browser id this server signed (issued here if need be)."""

    def __init__(self, app: ASGIApp, *, ids: OwnerIds) -> None:
        self.app = app
        self.ids = ids

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = [(k, v) for k, v in scope["headers"] if k != HEADER]  # only this middleware vouches
        browser = self.ids.verify(cookie_value(headers))
        cookie = None
        if browser is None:
            browser, value = self.ids.issue()
            cookie = set_cookie_header(value, secure=scope.get("scheme") in ("https", "wss"))
        scope = {**scope, "headers": [*headers, (HEADER, browser.encode())]}
        await self.app(scope, receive, send if cookie is None else _with_cookie(send, cookie))


def _with_cookie(send: Send, cookie: tuple[bytes, bytes]) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), cookie]}
        await send(message)

    return sending
