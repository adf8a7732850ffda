"""Which Gradio app a browser talks to: the chat alone, or the chat with the Audit tab.

A Gradio app's ``/config`` lists every component and event of its page, hidden ones included, and its queue
runs any event listed there for whoever sends it. So hiding the Audit tab would still hand its layout and
its handlers to every chatter. Instead there are two apps: the chat alone, mounted at "/", and the chat
with the Audit tab, mounted at `AUDIT_MOUNT`. This middleware sends the UI requests of a signed-in reviewer
or admin to the second and answers 404 to anybody else who asks for it by its path; chatters, demo visitors
and anonymous browsers only ever reach the first. The role is read on every request from Gradio's login,
which both apps share (one token table, one cookie name: see `share_login`), so one sign-in is enough and a
browser sees the app of the user it is signed in as. The audit handlers still check the role of every event.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import HTTPConnection

from webapp.web.gradiodoors import ASGIApp, Receive, Scope, Send, gradio_path, json_reply
from webapp.web.review_access import ReviewAccess

AUDIT_MOUNT = "/audit"


class AuditRoute:
    """ASGI middleware in front of both mounted Gradio apps."""

    def __init__(self, app: ASGIApp, *, access: ReviewAccess, mount: str = AUDIT_MOUNT) -> None:
        self.app = app
        self.access = access
        self.mount = mount

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path = gradio_path(scope)
        if path is None:
            await self.app(scope, receive, send)
            return
        reviewer = self.is_reviewer(scope)
        inside = path == self.mount or path.startswith(self.mount + "/")
        if inside and not reviewer:
            await json_reply(send, 404, "Not found.")
            return
        if reviewer and not inside:
            moved = self.mount + scope["path"]
            scope = {**scope, "path": moved, "raw_path": moved.encode()}
        await self.app(scope, receive, send)

    def is_reviewer(self, scope: Scope) -> bool:
        cookies = HTTPConnection(scope).cookies
        return self.access.may_review(self.access.login.user(cookies))


def share_login(chat_app: Any, audit_app: Any) -> None:
    """One sign-in for both apps: Gradio looks tokens and the cookie name up on its app object per request."""
    audit_app.tokens = chat_app.tokens
    audit_app.cookie_id = chat_app.cookie_id
