"""Idle and slowloris connections are closed at the header deadline (session 17), through real loopback sockets.

uvicorn armed no timeout on a connection before its first response, and cancelled its keep-alive timeout at
the first byte: 5,000 sockets that sent nothing or a header line every 2 s were all still open after 20 s,
each holding a file descriptor of the server's. Now a request's headers must be complete within
``RAILCHAT_HTTP_HEADER_TIMEOUT_S`` of the connection going idle, however slowly they trickle in.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tests.support.gradio_queue import GradioQueue
from tests.support.live_app import LiveApp, module_live_app, module_upstream, wait_for
from tests.support.scripted_upstream import Script, ScriptedUpstream

upstream = module_upstream()
DEADLINE_S = 0.5
SOCKETS = 200


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream) -> Iterator[LiveApp]:
    with module_live_app(tmp_path_factory, upstream, "deadline", http_header_timeout_s=DEADLINE_S) as live:
        yield live


def _closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_idle_and_trickling_connections_are_closed_and_the_app_still_answers(app: LiveApp) -> None:
    port = int(app.url.rsplit(":", 1)[1])
    idle, trickling = [], []
    try:
        for i in range(SOCKETS):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.setblocking(False)
            (trickling if i % 2 else idle).append(sock)
        for sock in trickling:
            sock.send(b"GET /healthz HTTP/1.1\r\n")
        with app.client() as client:
            assert client.get("/healthz").status_code == 200  # served while they are held

        def all_closed() -> bool:
            for sock in trickling:  # a header line at every look: never complete, never silent
                try:
                    sock.send(b"X-Slow: 1\r\n")
                except OSError:
                    pass
            return all(_closed_by_server(s) for s in idle + trickling)

        wait_for(all_closed, timeout_s=30)
    finally:
        for sock in idle + trickling:
            sock.close()


def test_an_answer_that_streams_past_the_deadline_is_not_cut(
    app: LiveApp, upstream: ScriptedUpstream
) -> None:
    upstream.push(Script(answer=["word "] * 40, delay_s=0.05))  # ~2 s of streaming, 4 deadlines
    with app.client() as client:
        queue = GradioQueue(client)
        result = queue.run(queue.fn_index("on_submit"), [{"text": "count", "files": []}, None, "Instant"])
        assert result.completed is not None and result.completed["success"], result.raw[-300:]
        assert "word word word" in result.raw
        assert client.get("/healthz").status_code == 200  # the kept-alive connection serves again
