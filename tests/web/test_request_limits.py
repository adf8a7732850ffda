"""Request size over real HTTP (attack pass, issue 14): the chat API's body cap held only for bodies that declare
their length; a chunked body was read whole into memory, whatever its size. Gradio's upload route capped each
file, not their number: one request kept up to 1,000 files of the image cap on disk (session 15)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
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
    limit = ChatCompletions(app.service, access=None, stall_s=60).max_body  # type: ignore[arg-type]
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


def files_in(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file()}


def test_an_upload_of_many_files_within_each_files_cap_is_refused_whole(app: LiveApp) -> None:
    # Gradio checks each file against max_image_bytes, not their number: 80 files of 1,000 bytes (up to 1,000 of
    # 20 MiB by default) were all kept on disk, for good.
    many = [("files", (f"{n}.png", bytes([n]) * 1000, "image/png")) for n in range(80)]
    with app.client() as client:
        before = files_in(app.upload_dir)
        response = client.post("/gradio_api/upload", files=many)
        assert response.status_code == 413, response.text
        assert files_in(app.upload_dir) == before
        one = client.post("/gradio_api/upload", files=many[:1])  # the page's one image still goes
        assert one.status_code == 200 and len(one.json()) == 1


def test_an_upload_that_does_not_declare_its_length_is_refused(app: LiveApp) -> None:
    form = httpx.Request("POST", "http://x/", files={"files": ("a.png", b"a" * 1000, "image/png")})
    body, content_type = form.read(), form.headers["content-type"]
    with app.client() as client:
        response = client.post(
            "/gradio_api/upload", content=iter([body]), headers={"Content-Type": content_type}
        )
    assert response.status_code == 413, response.text
