"""Request size over real HTTP (attack pass, issue 14): the chat API's body cap held only for bodies that declare
their length; a chunked body was read whole into memory, whatever its size."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.live_app import LiveApp, module_live_app, module_upstream
from tests.support.scripted_upstream import ScriptedUpstream
from webapp.web.api.routes import ChatCompletions

upstream = module_upstream()


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream) -> Iterator[LiveApp]:
    settings = {"max_image_bytes": 1024, "max_images_per_message": 1}  # a cap of ~8.4 MB
    with module_live_app(tmp_path_factory, upstream, "limits", **settings) as live:
        yield live


def chunks(total: int, size: int = 2**16) -> Iterator[bytes]:
    yield b'{"model": "any", "messages": [{"role": "user", "content": "'
    for _ in range(total // size):
        yield b"a" * size


@pytest.mark.parametrize("chunked", [True, False])
def test_a_body_past_the_cap_is_refused_with_413(app: LiveApp, chunked: bool) -> None:
    limit = ChatCompletions(app.service, access=None).max_body  # type: ignore[arg-type]
    body = chunks(limit + 2**20)
    with app.client() as client:
        content = body if chunked else b"".join(body)
        response = client.post(
            "/v1/chat/completions", content=content, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 413 and response.json()["error"]["code"] == "request_too_large"
        assert client.get("/healthz").status_code in (200, 503)  # the server is still there


def test_a_chunked_body_under_the_cap_is_read(app: LiveApp, upstream: ScriptedUpstream) -> None:
    body = [b'{"model": "any", "messages": ', b'[{"role": "user", "content": "hello"}]}']
    with app.client() as client:
        response = client.post(
            "/v1/chat/completions", content=iter(body), headers={"Content-Type": "application/json"}
        )
    assert response.status_code == 200, response.text
