"""A body trickled in is answered 408 and its connection closed (session 18), through real loopback sockets.

The header deadline ended at the last header byte: a request that then sent its body a byte every few seconds
(declared, or chunked) was waited for as long as its client liked, on every route that reads a body. Now the
body must have arrived within ``RAILCHAT_HTTP_BODY_TIMEOUT_S``, plus a second per ``RAILCHAT_HTTP_BODY_MIN_RATE``
bytes; a real upload, fast or slow but steady, is never cut.
"""

from __future__ import annotations

import itertools
import select
import socket
import time
from collections.abc import Iterator
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from starlette.requests import ClientDisconnect

from tests.support.live_app import LiveApp, module_live_app, module_upstream
from tests.support.raw_http import request_head, trickle
from tests.support.scripted_upstream import ScriptedUpstream
from tests.web.test_uploads import png
from webapp.web.bodydeadline import TOO_SLOW, BodyDeadline

upstream = module_upstream()
TIMEOUT_S = 1.0
MIN_RATE = 1000  # bytes a second
EVERY_S = 0.1  # a byte (or a chunk's framing) this often: 10 bytes a second, far below the rate
HEADER_TIMEOUT_S = 2.0
LIMIT_S = 20.0  # what the test waits for at most; on main every trickle below was still open then
JSON = {"Content-Type": "application/json"}
FORM = {"Content-Type": "multipart/form-data; boundary=b0undary"}
BYTES = [b"a"]
CHUNKS = [b"1\r\na\r\n"]  # a chunked body of one-byte chunks
EXTENSION = [b"1;x=", b"x"]  # a chunk's extension, never ending: no data
FILE_PART = b'--b0undary\r\nContent-Disposition: form-data; name="files"; filename="a.png"\r\n\r\n'
FILE = [FILE_PART, b"a"]  # a form whose file never ends (a chunked upload is refused at once)
# (method, path, headers, body pieces: the last one repeated for ever): every route that reads a body.
TRICKLES = {
    "upload": ("POST", "/gradio_api/upload", {**FORM, "Content-Length": "5000"}, FILE),
    "upload-audit": ("POST", "/audit/gradio_api/upload", {**FORM, "Content-Length": "5000"}, FILE),
    "queue-join": ("POST", "/gradio_api/queue/join", {**JSON, "Content-Length": "5000"}, BYTES),
    "login": (
        "POST",
        "/login",
        {"Content-Type": "application/x-www-form-urlencoded", "Content-Length": "5000"},
        BYTES,
    ),
    "chat-api": ("POST", "/v1/chat/completions", {**JSON, "Content-Length": "5000"}, BYTES),
    "chat-api-chunked": ("POST", "/v1/chat/completions", {**JSON, "Transfer-Encoding": "chunked"}, CHUNKS),
    "chat-api-extension": (
        "POST",
        "/v1/chat/completions",
        {**JSON, "Transfer-Encoding": "chunked"},
        EXTENSION,
    ),
    "reviewer-api": ("POST", "/api/sessions/x/annotations", {**JSON, "Content-Length": "5000"}, BYTES),
}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream) -> Iterator[LiveApp]:
    settings = {
        "http_body_timeout_s": TIMEOUT_S,
        "http_body_min_rate": MIN_RATE,
        "http_header_timeout_s": HEADER_TIMEOUT_S,
    }
    with module_live_app(tmp_path_factory, upstream, "body", **settings) as live:
        yield live


def _port(app: LiveApp) -> int:
    return int(app.url.rsplit(":", 1)[1])


@pytest.mark.parametrize("name", list(TRICKLES))
def test_a_trickled_body_is_answered_408_and_its_connection_closed(app: LiveApp, name: str) -> None:
    method, path, headers, pieces = TRICKLES[name]
    head = request_head(method, path, _port(app), headers)
    body = itertools.chain(pieces[:-1], itertools.repeat(pieces[-1]))
    answer = trickle(_port(app), head, body, every_s=EVERY_S, limit_s=LIMIT_S)
    assert answer.status == 408, (answer.raw[:300], answer.after_s)
    assert answer.raw.endswith(TOO_SLOW) and answer.closed
    assert TIMEOUT_S <= answer.after_s < TIMEOUT_S + 3, answer.after_s
    with app.client() as client:
        assert client.get("/healthz").status_code == 200


def test_a_slow_but_steady_upload_is_never_cut(app: LiveApp) -> None:
    """A body arriving above the rate (20 kB/s here) may take longer than the timeout: each byte buys time."""
    with app.client() as client:  # the browser id the upload belongs to
        client.get("/")
        cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
    picture = png((5, 6, 7)) + b"\0" * 40_000  # a PNG's trailing bytes are ignored by its readers
    form = (
        b'--b0undary\r\nContent-Disposition: form-data; name="files"; filename="slow.png"\r\n'
        b"Content-Type: image/png\r\n\r\n" + picture + b"\r\n--b0undary--\r\n"
    )
    headers = {**FORM, "Content-Length": str(len(form)), "Cookie": cookie}
    pieces = [form[i : i + 2000] for i in range(0, len(form), 2000)]  # 2 kB every 0.1 s: ~2.1 s in all
    answer = trickle(
        _port(app),
        request_head("POST", "/gradio_api/upload", _port(app), headers),
        pieces,
        every_s=0.1,
        limit_s=LIMIT_S,
    )
    assert answer.status == 200, answer.raw[:300]
    assert answer.sent == len(form) and answer.after_s > 2 * TIMEOUT_S


def test_a_few_megabytes_in_one_go_pass(app: LiveApp) -> None:
    with app.client() as client:
        body = b'{"model": "m", "messages": [{"role": "user", "content": "' + b"a" * 3_000_000 + b'"}]}'
        response = client.post("/v1/chat/completions", content=body, headers=JSON)
    assert response.status_code != 408, response.text[:300]


@pytest.mark.parametrize(("method", "path"), [("GET", "/healthz"), ("POST", "/nope"), ("GET", "/v1/models")])
def test_a_body_trickled_on_after_the_answer_is_cut_by_the_header_deadline(
    app: LiveApp, method: str, path: str
) -> None:
    """A route that answers without reading its body never waits for it; the connection then counts as idle."""
    head = request_head(method, path, _port(app), {"Content-Length": "100000"})
    sock = socket.create_connection(("127.0.0.1", _port(app)))
    with sock:
        sock.sendall(head)
        start, answered, closed_after = time.monotonic(), b"", None
        while closed_after is None and time.monotonic() - start < LIMIT_S:
            ready, _, _ = select.select([sock], [], [], EVERY_S)
            try:
                data = sock.recv(65536) if ready else None
                if data == b"":
                    closed_after = time.monotonic() - start
                    break
                answered += data or b""
                sock.sendall(b"a")  # the body goes on, a byte at a time, after the answer
            except OSError:
                closed_after = time.monotonic() - start
    assert answered.startswith(b"HTTP/1.1 ") and b" 408 " not in answered[:12]
    assert closed_after is not None and closed_after < HEADER_TIMEOUT_S + 2, closed_after


async def test_the_route_giving_up_on_the_late_body_is_not_logged_as_a_crash() -> None:
    """Starlette raises ClientDisconnect when told the client left: uvicorn logged a traceback per trickle."""
    sent: list[dict[str, object]] = []

    async def never() -> dict[str, object]:
        await anyio.sleep_forever()
        raise AssertionError

    async def route(scope: object, receive: Any, send: Any) -> None:
        message = await receive()
        assert message["type"] == "http.disconnect"
        raise ClientDisconnect()

    async def record(message: Any) -> None:
        sent.append(message)

    app = BodyDeadline(route, timeout_s=0.05, min_rate=MIN_RATE)
    await app({"type": "http", "method": "POST", "path": "/x"}, never, record)
    assert sent[0]["status"] == 408 and sent[-1]["body"] == TOO_SLOW


async def test_time_the_server_takes_before_it_reads_is_not_the_clients() -> None:
    """The deadline starts at the route's first read: before it, uvicorn stops reading the socket anyway."""
    pieces = [{"type": "http.request", "body": b"x" * 10, "more_body": more} for more in (True, True, False)]
    sent: list[Any] = []

    async def receive() -> Any:
        await anyio.lowlevel.checkpoint()  # uvicorn resumes reading the socket, then waits for the next piece
        return pieces.pop(0)

    async def route(scope: object, receive: Any, send: Any) -> None:
        await anyio.sleep(0.2)  # a queue or a lock: four times the body's timeout
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    async def record(message: Any) -> None:
        sent.append(message)

    app = BodyDeadline(route, timeout_s=0.05, min_rate=MIN_RATE)
    await app({"type": "http", "method": "POST", "path": "/x"}, receive, record)
    assert sent[0]["status"] == 200 and sent[-1]["body"] == b"x" * 30
