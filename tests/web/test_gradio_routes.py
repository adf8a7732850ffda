"""Gradio is reached only through the page's own routes: every route the mounted Gradio apps register, today's
and any a Gradio upgrade adds, is either one the page calls (``PAGE_ROUTES``) or answers our 404.

The routes are enumerated from the mounted apps themselves, not from a list in this test, so a new Gradio
release that adds a route fails here until someone decides about it.
"""

from __future__ import annotations

import http.client
import re
from collections.abc import Iterator

import pytest

from tests.support.live_app import LiveApp, module_live_app, module_upstream
from tests.support.scripted_upstream import ScriptedUpstream
from webapp.web.audit_route import AUDIT_MOUNT
from webapp.web.gradiodoors import PAGE_ROUTES, page_route

upstream = module_upstream()
OURS = b'{"detail": "Not found."}'  # GradioDoors' answer; Gradio's own 404 says "Not Found"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream) -> Iterator[LiveApp]:
    with module_live_app(tmp_path_factory, upstream, "routes") as live:
        yield live


def gradio_routes(live: LiveApp) -> list[tuple[str, str, str]]:
    """(mount, method, path template) of every route of every Gradio app the FastAPI app mounts."""
    from starlette.routing import Mount, Route

    fastapi_app = live.server_app
    found = []
    for mount in (r for r in fastapi_app.routes if isinstance(r, Mount)):
        for route in mount.routes:
            assert isinstance(route, Route), (
                route
            )  # a websocket route or a mount would need a look of its own
            found += [(mount.path, method, route.path) for method in route.methods or ()]
    return found


def concrete(template: str) -> str:
    """A path template with every parameter filled (`{path:path}` with a file name an attacker would try)."""
    return re.sub(r"\{[^}]+\}", "x", template)


def raw(live: LiveApp, method: str, path: str) -> tuple[int, bytes]:
    """Byte for byte over http.client: httpx would tidy the path before it left."""
    host, port = live.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=20)
    body = b"{}" if method in ("POST", "PUT", "PATCH") else None
    headers = {"Content-Type": "application/json", "Host": f"{host}:{port}"}
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    status, text = response.status, response.read()
    if method == "HEAD":  # no body: ours is told by its length (Gradio's "Not Found" is two bytes shorter)
        text = OURS if response.getheader("content-length") == str(len(OURS)) else text
    connection.close()
    return status, text


def test_every_gradio_route_is_a_page_route_or_refused(app: LiveApp) -> None:
    routes = gradio_routes(app)
    assert len(routes) > 60  # both apps' routes were found (the chat at "/" and the audit app)
    open_doors = []
    for mount, method, template in routes:
        path = mount + concrete(template)
        if page_route(method, path, (AUDIT_MOUNT,)):
            continue
        status, body = raw(app, method, path)
        if (status, body) != (404, OURS):
            open_doors.append((method, path, status, body[:80]))
    assert open_doors == []


def test_every_page_route_is_one_gradio_registers(app: LiveApp) -> None:
    """The allowlist holds no stale entry that a later Gradio could fill with something else."""
    registered = [(method, concrete(template)) for _, method, template in gradio_routes(app)]
    for method, routes in PAGE_ROUTES.items():
        for route in routes:
            probe = route[:-1] + "x" if route.endswith("*") else route
            assert any(m == method and re.fullmatch(_pattern(t), probe) for m, t in registered), (
                method,
                route,
            )


def _pattern(concrete_path: str) -> str:
    return re.escape(concrete_path).replace("x", ".*")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/gradio_api/run/on_submit"),  # the API-client routes run events outside the queue's checks
        ("POST", "/gradio_api/call/on_submit"),
        ("POST", "/gradio_api/api/on_submit"),
        ("GET", "/gradio_api/info"),
        ("GET", "/gradio_api/openapi.json"),
        ("GET", "/openapi.json"),
        ("GET", "/gradio_api/file/etc/passwd"),  # the other spelling of the file route
        ("GET", "/gradio_api/upload_progress?upload_id=x"),
        ("POST", "/gradio_api/stream/x"),
        ("GET", "/gradio_api/queue/status"),
        ("GET", "/gradio_api/startup-events"),
        ("GET", "/svelte/x"),
        ("GET", "/config/"),
        ("GET", "/metrics/"),  # one slash past our own routes lands on the Gradio mount
        ("GET", "/healthzx"),
        ("DELETE", "/"),
        ("PUT", "/gradio_api/upload"),
    ],
)
def test_routes_the_page_never_calls_answer_404(app: LiveApp, method: str, path: str) -> None:
    assert raw(app, method, path) == (404, OURS)


@pytest.mark.parametrize("path", ["/v1/gradio_api/info", "/api/gradio_api/info", "/v1/x", "/api/config"])
def test_unknown_api_paths_are_answered_by_the_api_not_gradio(app: LiveApp, path: str) -> None:
    status, body = raw(app, "GET", path)
    assert status == 404 and b'"not_found"' in body


def test_the_page_routes_still_work(app: LiveApp) -> None:
    with app.client() as client:
        assert client.get("/").status_code == 200
        assert client.get("/config").status_code == 200
        assert client.head("/").status_code == 200
        assert client.get("/robots.txt").status_code == 200
