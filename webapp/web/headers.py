"""Response headers that keep other pages from framing the app and browsers from guessing content types.

- Framing: any site could show the chat in an invisible frame and steer a visitor's clicks onto Send,
  Retry or Delete (clickjacking). ``frame-ancestors 'self'`` (and ``X-Frame-Options`` for older browsers)
  lets only the app's own pages frame it.
- Sniffing: an upload named ``x.png`` may hold HTML; Gradio serves it as ``image/png``, and ``nosniff`` tells
  the browser to take the declared type at its word rather than look inside.
- Referrer: a chat's address holds its id (``/?chat=ID``); no request leaving the page carries it.

A response that already sets one of these (the Reviewer API's sandboxed attachments, the demo gate's pages)
keeps its own value.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"SAMEORIGIN"),
    (b"referrer-policy", b"no-referrer"),
)
FRAME_POLICY = b"frame-ancestors 'self'"


class SecurityHeaders:
    """ASGI middleware: adds ``SECURITY_HEADERS`` and a framing policy to every HTTP response lacking them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = with_security_headers(list(message.get("headers", [])))
            await send(message)

        await self.app(scope, receive, send_with_headers)


def with_security_headers(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    present = {name.lower() for name, _ in headers}
    added = [(name, value) for name, value in SECURITY_HEADERS if name not in present]
    if b"content-security-policy" not in present:
        added.append((b"content-security-policy", FRAME_POLICY))
    else:
        headers = [_with_frame_policy(name, value) for name, value in headers]
    return headers + added


def _with_frame_policy(name: bytes, value: bytes) -> tuple[bytes, bytes]:
    """A page's own policy keeps its rules and gains ``frame-ancestors`` unless it names one."""
    if name.lower() != b"content-security-policy" or b"frame-ancestors" in value:
        return name, value
    return name, value.rstrip(b"; ") + b"; " + FRAME_POLICY
