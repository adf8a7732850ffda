"""One server-issued, signed id per browser, in an HttpOnly cookie: who an anonymous chatter is, and whose
uploads a request may name.

Every event payload is written by the client, so an owner id taken as sent would let anyone who learns
another browser's id (a shared screen, a log line, an extension) read their chats. The browser therefore
keeps a cookie ``id.signature`` (HMAC-SHA256, keyed from the app's secret in the data folder, so it survives
reloads and restarts) that page scripts cannot read. ``OwnerCookie`` checks it on every request, issues a
fresh one when it is missing, forged or unsigned, and hands the id to the app in the ``x-railchat-browser``
header after removing any copy of that header the client sent. Everything else (the chat list, demo limits,
invites, uploads) reads the id from there, never from an event's data.

A signed-in user (``--auth-file``) owns chats and uploads by name, so two people who sign in one after the
other in one browser profile share nothing; an anonymous browser owns both by its id.

The id has a lifetime (``Settings.browser_id_days``): the cookie carries the time it was issued, under the
signature, and an id older than that is replaced by a fresh one (with no chats), so a copy of the cookie
that leaked does not open the chats for ever. The browser is told the same lifetime (``Max-Age``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from http.cookies import SimpleCookie
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

OWNER_PREFIX = "browser:"
COOKIE = "railchat-visitor"  # the name demo visitors' cookies already carry: their chats stay theirs
HEADER = b"x-railchat-browser"
ISSUED = re.compile(r"[0-9]{1,12}")  # seconds since the epoch, when the id was issued


class OwnerIds:
    """Issues browser ids and checks the signature and the age of the cookie that carries one."""

    def __init__(self, secret: str, *, lifetime_s: float, clock: Callable[[], float] = time.time) -> None:
        self._key = hashlib.sha256(b"railchat visitor id\0" + secret.encode()).digest()
        self.lifetime_s = lifetime_s
        self._clock = clock

    def _sign(self, browser: str, issued: str) -> str:
        return hmac.new(self._key, f"{browser}\0{issued}".encode(), hashlib.sha256).hexdigest()[:32]

    def issue(self) -> tuple[str, str]:
        """A new browser id and the cookie value that proves it (and when it was issued)."""
        browser, issued = secrets.token_urlsafe(16), str(int(self._clock()))
        return browser, f"{browser}.{issued}.{self._sign(browser, issued)}"

    def verify(self, value: str | None) -> str | None:
        """The browser id a cookie value was issued for, or None if this server did not sign it or its
        lifetime is over. Values of earlier versions (no issue time) count as expired: nothing bounds them."""
        parts = (value or "").split(".")
        if len(parts) != 3 or not parts[0] or not ISSUED.fullmatch(parts[1]):
            return None
        browser, issued, signature = parts
        if not hmac.compare_digest(signature.encode(), self._sign(browser, issued).encode()):
            return None
        age = self._clock() - int(issued)
        return browser if -60 <= age < self.lifetime_s else None  # a minute of clock skew between workers


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


def set_cookie_header(value: str, *, secure: bool, max_age_s: float) -> tuple[bytes, bytes]:
    attributes = f"{COOKIE}={value}; Path=/; Max-Age={int(max_age_s)}; HttpOnly; SameSite=Lax"
    return (b"set-cookie", (attributes + ("; Secure" if secure else "")).encode())


def browser_of(headers: Mapping[str, str] | Iterable[tuple[bytes, bytes]] | None) -> str | None:
    """The browser id ``OwnerCookie`` vouched for on this request (from a header mapping or raw ASGI headers)."""
    if headers is None:
        return None
    if isinstance(headers, Mapping):
        return headers.get(HEADER.decode()) or None
    return next((v.decode("latin-1") for k, v in headers if k == HEADER), None) or None


def owner_id(*, username: str | None, browser: str | None) -> str | None:
    """Who owns chats and uploads: ``user:NAME`` when signed in, else ``browser:ID``, else None."""
    if username:
        return f"user:{username}"
    return OWNER_PREFIX + browser if browser else None


def owner_of(request: Any) -> str | None:
    """The owner (``owner_id``) of a Gradio or Starlette request."""
    if request is None:
        return None
    browser = browser_of(dict(getattr(request, "headers", None) or {}))
    return owner_id(username=getattr(request, "username", None), browser=browser)


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
            secure = scope.get("scheme") in ("https", "wss")
            cookie = set_cookie_header(value, secure=secure, max_age_s=self.ids.lifetime_s)
        scope = {**scope, "headers": [*headers, (HEADER, browser.encode())]}
        await self.app(scope, receive, send if cookie is None else _with_cookie(send, cookie))


def _with_cookie(send: Send, cookie: tuple[bytes, bytes]) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), cookie]}
        await send(message)

    return sending
