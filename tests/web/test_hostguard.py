"""A web page must not drive the open loopback app: DNS rebinding (foreign Host) and cross-site requests.

Sent over real HTTP to the whole app (FastAPI + Gradio) on loopback, with headers a browser would send for a
hostile page; the scripted upstream shows whether a turn ran.
"""

from __future__ import annotations

import pytest

from tests.support.gradio_queue import GradioQueue
from tests.support.live_app import LiveApp, module_live_app, module_upstream
from tests.support.scripted_upstream import ScriptedUpstream

CHAT = {"model": "any", "messages": [{"role": "user", "content": "Hello"}]}


upstream = module_upstream()


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream):
    with module_live_app(tmp_path_factory, upstream, "hostguard") as live:
        yield live


@pytest.mark.parametrize(
    "host",
    [
        "attacker.example",
        "attacker.example:7860",
        "127.0.0.1.nip.io",
        "localhost.evil",
        # A name, then something other than a port: was read as "localhost" (attack pass, issue 14)
        "localhost:7860@attacker.example",
        "127.0.0.1:80:attacker.example",
        "[::1]x.attacker.example",
        "2130706433",  # 127.0.0.1 as one number: a resolver's spelling, never a browser's Host
        "[::ffff:127.0.0.1]",
    ],
)
@pytest.mark.parametrize(
    "route", ["/", "/config", "/v1/models", "/healthz", "/gradio_api/queue/data?session_hash=x"]
)
def test_a_rebound_dns_name_is_not_served(app: LiveApp, host: str, route: str) -> None:
    with app.client() as client:
        response = client.get(route, headers={"Host": host})
    assert response.status_code == 421
    assert response.json()["error"]["code"] == "untrusted_host"


def test_a_rebound_dns_name_cannot_run_a_turn(app: LiveApp, upstream: ScriptedUpstream) -> None:
    before = len(upstream.requests)
    with app.client() as client:
        response = client.post("/v1/chat/completions", json=CHAT, headers={"Host": "attacker.example"})
    assert response.status_code == 421 and len(upstream.requests) == before


@pytest.mark.parametrize(
    "headers",
    [
        {"Content-Type": "text/plain", "Origin": "http://attacker.example"},  # the request
        {"Content-Type": "application/json", "Origin": "http://attacker.example"},
        {"Content-Type": "application/json", "Origin": "null"},
        {"Content-Type": "application/json", "Origin": "http://localhost:8888"},  # another local port
        {"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"},
        {"Content-Type": "text/plain"},
        {"Content-Type": "application/x-www-form-urlencoded"},
        {"Content-Type": "multipart/form-data; boundary=x"},
    ],
)
def test_a_cross_site_request_cannot_run_a_turn(app: LiveApp, upstream: ScriptedUpstream, headers) -> None:
    import json

    before = len(upstream.requests)
    with app.client() as client:
        response = client.post("/v1/chat/completions", content=json.dumps(CHAT), headers=headers)
    assert response.status_code in (403, 415)
    assert len(upstream.requests) == before


def test_a_cross_site_page_cannot_join_the_ui_queue(app: LiveApp, upstream: ScriptedUpstream) -> None:
    before = len(upstream.requests)
    with app.client() as client:
        queue = GradioQueue(client)
        submit = queue.fn_index("on_submit")
        client.headers["Origin"] = "http://attacker.example"
        result = queue.run(submit, [{"text": "hi", "files": []}, None, "Instant"])
    assert result.join_status == 403 and len(upstream.requests) == before


def test_own_clients_still_work(app: LiveApp, upstream: ScriptedUpstream) -> None:
    with app.client() as client:
        plain = client.post("/v1/chat/completions", json=CHAT)  # scripts send no Origin
        same_origin = client.post("/v1/chat/completions", json=CHAT, headers={"Origin": app.url})
        by_name = client.get("/v1/models", headers={"Host": f"localhost:{app.url.rsplit(':', 1)[1]}"})
        queue = GradioQueue(client)
        client.headers["Origin"] = app.url  # the page's own requests
        ui = queue.run(queue.fn_index("on_submit"), [{"text": "hi", "files": []}, None, "Instant"])
    assert plain.status_code == 200 and same_origin.status_code == 200 and by_name.status_code == 200
    assert ui.completed is not None and ui.completed["success"]


def raw_exchange(app: LiveApp, request: bytes) -> tuple[int, bytes]:
    """One request sent byte for byte (no HTTP client sends two Hosts or an absolute target to a server)."""
    import socket

    port = int(app.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        received = b""
        while b"\r\n\r\n" not in received and (chunk := sock.recv(65536)):
            received += chunk
    status_line = received.split(b"\r\n", 1)[0]
    return int(status_line.split()[1]), received


def request_bytes(app: LiveApp, target: str, hosts: list[str], body: str = "") -> bytes:
    lines = [f"{'POST' if body else 'GET'} {target} HTTP/1.1", *(f"Host: {h}" for h in hosts)]
    if body:
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    return ("\r\n".join([*lines, "Connection: close", "", ""]) + body).encode()


def own_host(app: LiveApp) -> str:
    return app.url.removeprefix("http://")


@pytest.mark.parametrize("order", ["own first", "attacker first"])
@pytest.mark.parametrize("route", ["/healthz", "/v1/models", "/config"])
def test_two_host_headers_are_refused(app: LiveApp, order: str, route: str) -> None:
    """Was: judged by the first, so a loopback Host followed by a foreign one was served (attack pass)."""
    hosts = [own_host(app), "attacker.example"]
    status, _ = raw_exchange(app, request_bytes(app, route, hosts if order == "own first" else hosts[::-1]))
    assert status == 400


@pytest.mark.parametrize("route", ["/healthz", "/v1/models", "/config", "/"])
def test_an_absolute_target_is_judged_by_its_own_host(app: LiveApp, route: str) -> None:
    """HTTP: the host in an absolute-form target wins over the Host header. Was: served by the Host header."""
    foreign, _ = raw_exchange(app, request_bytes(app, f"http://attacker.example{route}", [own_host(app)]))
    own, _ = raw_exchange(app, request_bytes(app, f"http://{own_host(app)}{route}", ["attacker.example"]))
    assert foreign == 421
    assert own == 200  # the control: the same request for this server's own name is served


def test_an_absolute_target_cannot_run_a_turn(app: LiveApp, upstream: ScriptedUpstream) -> None:
    import json

    before = len(upstream.requests)
    request = request_bytes(
        app, "http://attacker.example/v1/chat/completions", [own_host(app)], json.dumps(CHAT)
    )
    status, _ = raw_exchange(app, request)
    assert status == 421 and len(upstream.requests) == before
