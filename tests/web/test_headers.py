"""Every response forbids framing by other sites and content sniffing, over real HTTP to the whole app."""

from __future__ import annotations

import httpx
import pytest

from tests.support.live_app import LiveApp, module_live_app, module_upstream
from tests.support.scripted_upstream import ScriptedUpstream
from webapp.web.headers import with_security_headers

upstream = module_upstream()


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream):
    with module_live_app(tmp_path_factory, upstream, "headers") as live:
        yield live


def assert_guarded(response: httpx.Response) -> None:
    assert response.headers["x-content-type-options"] == "nosniff", response.url
    assert response.headers["x-frame-options"] == "SAMEORIGIN", response.url
    assert "frame-ancestors 'self'" in response.headers["content-security-policy"], response.url
    assert response.headers["referrer-policy"] == "no-referrer", response.url


@pytest.mark.parametrize(
    "route", ["/", "/config", "/audit/", "/v1/models", "/healthz", "/v1/nothing", "/gradio_api/info"]
)
def test_pages_apis_and_errors_cannot_be_framed_or_sniffed(app: LiveApp, route: str) -> None:
    with app.client() as client:
        assert_guarded(client.get(route))


def test_a_refused_request_carries_them_too(app: LiveApp) -> None:
    with app.client() as client:
        response = client.get("/", headers={"Host": "attacker.example"})
    assert response.status_code == 421
    assert_guarded(response)


def test_an_upload_holding_html_is_served_as_what_it_claims(app: LiveApp) -> None:
    # Gradio serves an upload named .png as image/png whatever it holds; nosniff keeps it an image.
    with app.client() as client:
        upload = app.upload(client, "page.png", b"<html><script>alert(1)</script></html>")
        response = client.get(f"/gradio_api/file={upload['path']}")
    assert response.status_code == 200 and response.headers["content-type"] == "image/png"
    assert_guarded(response)


def test_a_response_keeps_its_own_policy_and_gains_frame_ancestors() -> None:
    own = [(b"content-security-policy", b"default-src 'none'; sandbox"), (b"x-frame-options", b"DENY")]
    headers = dict(with_security_headers(own))
    assert headers[b"content-security-policy"] == b"default-src 'none'; sandbox; frame-ancestors 'self'"
    assert headers[b"x-frame-options"] == b"DENY"
    assert headers[b"x-content-type-options"] == b"nosniff"
    named = [(b"Content-Security-Policy", b"frame-ancestors 'none'")]
    assert with_security_headers(named)[0] == named[0]
