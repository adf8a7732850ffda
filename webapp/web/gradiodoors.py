"""Gradio's side doors, closed at the ASGI layer in front of the mounted app.

Gradio (6.x) trusts its payloads more than a public app can afford to:
- every file-shaped value in an event's data is copied into its cache (a local path) or downloaded (an
  http(s) URL) before a handler runs, and for a mounted app it never checks that the file was uploaded;
- `/gradio_api/file=<url>` fetches any public URL for anyone, `/gradio_api/proxy=` forwards requests;
- its 403 bodies echo the requested path back;
- `/cancel` (and `/reset`, `/stream/...`, `/heartbeat/...`) need no login even when the UI asks for one, and
  `/cancel` stops whichever event its body names, whichever tab sends it (``webapp.web.liveevents``);
- routes this app never uses stay open to anyone: `/dev/reload` holds a connection that polls every 50 ms
  for as long as a client keeps it, `/process_recording` takes a video and runs ffmpeg on it with the
  client's parameters, `/component_server` calls component functions, and each release adds more. So Gradio
  is reached only through an allowlist, per method, of the routes the page calls (`PAGE_ROUTES`, recorded
  from Chromium driving every control, signed in and not): anything else, today's or a future release's,
  answers 404 before Gradio sees it.

The app never serves a file it did not receive from the browser, and never fetches a URL for anybody (URLs
are the rails' and `media/fetch.py`'s business, behind the allowlist). So this middleware refuses, before
Gradio sees them: event payloads that name anything but an upload this same owner made (the signed-in user,
else the browser's signed id from ``OwnerCookie``, which must wrap this middleware), file routes for anything
else, and the proxy route. The handlers check uploads again (defence in depth).

An event holding a lone UTF-16 surrogate (JSON's "\ud800") is refused too: Gradio echoes some values back (a
dropdown's refusal names the value) and cannot encode them, so the event ended in its `unexpected_error` and
the tab's event stream died. The page never sends one; only a hand-written event does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Container, MutableMapping
from typing import Any

from webapp.web.liveevents import LiveEvents
from webapp.web.ownership import browser_of, owner_id
from webapp.web.tabbinding import TabBinding
from webapp.web.uploadquota import UploadQuota
from webapp.web.uploads import UploadLedger, is_url_like, named_paths

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Routes of ours (FastAPI, beside the mount) that validate their own bodies and never hand paths to Gradio;
# app.py answers unknown paths under the prefixes itself, so none of them falls through to Gradio.
OWN_PREFIXES = ("/v1/", "/api/")
OWN_PATHS = ("/metrics", "/healthz")
FILE_ROUTE = re.compile(r"/file[=/](?P<target>.*)$", re.DOTALL)
MAX_EVENT_BODY = 4 * 1024 * 1024  # an event carries text and upload paths, never file bytes
MULTIPART_SLACK = 64 * 1024  # an upload's form: boundaries, part headers and file names besides the bytes
# Gradio routes that act on a running event without its login check (cancel someone's turn, feed a stream).
UNGUARDED_ROUTE = re.compile(r"/gradio_api/(cancel|reset|stream/|heartbeat/)")
LOGIN_CHECK = "/gradio_api/login_check"
# Every Gradio route the page calls, per method, relative to the app's mount ("*" ends a prefix). The page
# gets its config inside its HTML; `/config` stays for Gradio's client and reconnects, `/robots.txt` keeps
# share links out of search engines. Everything else Gradio registers (the API-client routes `/run`,
# `/call`, `/api`, `/info`; `/upload_progress`, `/stream/...`, `/dev/reload`, `/process_recording`, vibe
# editing, monitoring, ...) answers 404.
PAGE_ROUTES = {
    "GET": (
        "/",
        "/config",
        "/theme.css",
        "/favicon.ico",
        "/robots.txt",
        "/logout",
        "/assets/*",
        "/static/*",
        "/gradio_api/file=*",
        "/gradio_api/queue/data",
        "/gradio_api/heartbeat/*",
    ),
    "HEAD": ("/", "/gradio_api/file=*"),
    "POST": (
        "/login",
        "/gradio_api/queue/join",
        "/gradio_api/upload",
        "/gradio_api/cancel",
        "/gradio_api/reset",
    ),
}
QUEUE_JOIN = "/gradio_api/queue/join"
CANCEL = "/gradio_api/cancel"


def page_route(method: str, path: str, mounts: tuple[str, ...] = ()) -> bool:
    """Whether ``method path`` (as the router reads it, mount prefix included) is a route the page calls."""
    for mount in mounts:
        if path == mount or path.startswith(mount + "/"):
            path = path[len(mount) :] or "/"
            break
    return any(
        path.startswith(route[:-1]) if route.endswith("*") else path == route
        for route in PAGE_ROUTES.get(method, ())
    )


class GradioDoors:
    """ASGI middleware: no server path or URL may pass into or out of Gradio except the browser's own uploads."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        ledger: UploadLedger,
        tabs: TabBinding,
        login: bool = False,
        mounts: tuple[str, ...] = (),
        max_body: int = MAX_EVENT_BODY,
        events: Callable[[str], Container[int]] | None = None,
        user: Callable[[Scope], str | None] = lambda scope: None,
        joined: LiveEvents | None = None,
        max_upload: int | None = None,
        quota: UploadQuota | None = None,
    ) -> None:
        self.app = app
        self.ledger = ledger
        self.tabs = tabs  # every session_hash is bound to the browser that sends it
        self.mounts = mounts  # where Gradio apps other than the one at "/" are mounted
        self.login = login  # the UI asks for a login: so do the Gradio routes that forgot to
        self.max_body = max_body
        # The event ids of the page a path belongs to: Gradio answers an unknown fn_index with a 500.
        self.events = events
        self.user = user  # the name a request is signed in under (Gradio's login cookie), if any
        # Which tab runs which event (Gradio's queue): only it may cancel the event. None: no cancel passes.
        self.joined = joined
        # Gradio caps each uploaded file, not their number (up to 1,000 in one request), and keeps them all.
        self.max_upload = max_upload
        self.quota = quota  # ... nor how much one owner uploads over time, nor all of them together

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path = gradio_path(scope)
        if path is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":  # the page never opens one; Gradio may add some
            await send({"type": "websocket.close", "code": 1008})
            return
        browser = browser_of(scope.get("headers", []))
        owner = owner_id(username=self.user(scope), browser=browser)  # whose uploads this request may name
        method = scope.get("method", "GET")
        if not page_route(method, path, self.mounts) or self._file_refused(path, owner):
            await json_reply(send, 404, "Not found.")
            return
        if self.login and UNGUARDED_ROUTE.search(path) and not await self._signed_in(scope):
            await json_reply(send, 401, "Not authenticated.")
            return
        scope = self.tabs.scope(scope, browser)
        if method == "POST" and path.endswith("/upload"):
            # The page shows an upload's refusal as its toast, body verbatim: a sentence, not JSON.
            if owner is None:
                await text_reply(send, 403, "Uploads need a browser id.")
                return
            declared = _declared(scope)
            if declared is None or (self.max_upload is not None and declared > self.max_upload):
                await text_reply(send, 413, "The upload is too large, or does not declare its length.")
                return
            refusal = None if self.quota is None else self.quota.admit(owner, declared)
            if refusal is not None:
                await text_reply(send, 429, refusal[0], retry_after=refusal[1])
                return
            send = _on_success(send, lambda body: self._record_uploads(owner, body))
        elif method == "POST":
            await self._post(path, scope, receive, send, owner=owner, browser=browser)
            return
        await self.app(scope, receive, send)

    async def _post(
        self, path: str, scope: Scope, receive: Receive, send: Send, *, owner: str | None, browser: str | None
    ) -> None:
        """An event, cancel, reset or login body: read whole, judged, its session hash bound, then handed on."""
        body = await _read_body(receive, self.max_body)
        if body is None:
            await json_reply(send, 413, "Request too large.")
            return
        payload = _json(body)
        refusal = self._body_refusal(path, payload, owner)
        if refusal is not None:
            await json_reply(send, *refusal)
            return
        if self.tabs.body(payload, browser):
            body = json.dumps(payload).encode()
            scope = _with_length(scope, len(body))
        if path.endswith(CANCEL) and not self._cancels_own(path, payload):
            await json_reply(send, 404, "No such event in this tab.")
            return
        await self.app(scope, _replay(body, receive), send)

    def _record_uploads(self, owner: str, body: bytes) -> None:
        """Note the paths Gradio's upload route answers with as this owner's (its body is a JSON list)."""
        paths = _json(body)
        if isinstance(paths, list):
            self.ledger.record(owner, paths)
            if self.quota is not None:
                self.quota.uploaded(owner, len(paths))

    def _cancels_own(self, path: str, payload: object) -> bool:
        """Whether a cancel body names an event the queue runs for its own (bound) tab."""
        return (
            isinstance(payload, dict)
            and self.joined is not None
            and self.joined.joined(path, payload.get("event_id"), payload.get("session_hash"))
        )

    async def _signed_in(self, scope: Scope) -> bool:
        """Ask Gradio's own login check, in process, with the request's cookies."""
        status = 0
        probe = {
            **scope,
            "method": "GET",
            "path": LOGIN_CHECK,
            "raw_path": LOGIN_CHECK.encode(),
            "query_string": b"",
        }

        async def no_body() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def capture(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]

        await self.app(probe, no_body, capture)
        return status == 200

    def _file_refused(self, path: str, owner: str | None) -> bool:
        match = FILE_ROUTE.search(path)
        if match is None:
            return False
        return not self._owned(match.group("target"), owner)

    def _owned(self, path: object, owner: str | None) -> bool:
        if isinstance(path, str) and is_url_like(path):
            return False
        return self.ledger.owns(owner, path)

    def _body_refusal(self, path: str, payload: object, owner: str | None) -> tuple[int, str] | None:
        if payload is _TOO_DEEP:
            return 400, "The request body is nested too deeply."
        if holds_lone_surrogate(payload):
            return 400, "The event holds text that is not valid Unicode (an unpaired UTF-16 surrogate)."
        if not all(self._owned(p, owner) for p in named_paths(payload)):
            return 400, "Files must be uploaded through this page."
        if self.events is not None and path.endswith(QUEUE_JOIN):
            fn_index = payload.get("fn_index") if isinstance(payload, dict) else None
            known = (
                isinstance(fn_index, int) and not isinstance(fn_index, bool) and fn_index in self.events(path)
            )
            if not known:
                return 404, "No such event on this page."
        return None


_NOT_JSON = object()  # login forms: Gradio cannot read paths or a session out of them either
# JSON nested past Python's recursion limit (5,000 brackets fit in a few kB): Gradio's own parser raises on
# it and answers 500, so it is refused here instead of handed on.
_TOO_DEEP = object()


def _json(body: bytes) -> object:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return _NOT_JSON
    except RecursionError:
        return _TOO_DEEP


def holds_lone_surrogate(value: object) -> bool:
    """Whether any string in a parsed JSON value (keys included) holds an unpaired surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _on_success(send: Send, consume: Callable[[bytes], None]) -> Send:
    """``send``, handing the whole body of a 200 answer to ``consume`` before its last part goes out."""
    status, chunks = 0, []

    async def sending(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body" and status == 200:
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                consume(b"".join(chunks))
        await send(message)

    return sending


def upload_cap(files: int, file_bytes: int) -> int:
    """The largest upload request the page sends: one message's images at their largest, in one form."""
    return files * file_bytes + MULTIPART_SLACK


def _declared(scope: Scope) -> int | None:
    """The length a request declares: the server holds a body to it, and a browser's upload always declares
    it (a chunked one could not be refused, or charged to a quota, before Gradio reads it)."""
    declared = dict(scope.get("headers", [])).get(b"content-length", b"")
    return int(declared) if declared.isdigit() else None


def _with_length(scope: Scope, length: int) -> Scope:
    headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"content-length"]
    return {**scope, "headers": [*headers, (b"content-length", str(length).encode())]}


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def gradio_path(scope: Scope) -> str | None:
    """The request's path with runs of slashes collapsed (as the router reads it), or None for our own
    routes, which check their own input and never reach Gradio."""
    path = re.sub(r"/{2,}", "/", scope.get("path", ""))
    return None if path.startswith(OWN_PREFIXES) or path in OWN_PATHS else path


async def json_reply(send: Send, status: int, text: str, *, retry_after: int | None = None) -> None:
    await _reply(send, status, json.dumps({"detail": text}).encode(), b"application/json", retry_after)


async def text_reply(send: Send, status: int, text: str, *, retry_after: int | None = None) -> None:
    """A refusal the page shows as it is: Gradio's upload toast reads ``HTTP <status>: <body>``, so a JSON
    body showed the user its braces and quotes (session 18)."""
    await _reply(send, status, text.encode(), b"text/plain; charset=utf-8", retry_after)


async def _reply(send: Send, status: int, body: bytes, content_type: bytes, retry_after: int | None) -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
