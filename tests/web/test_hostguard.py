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
