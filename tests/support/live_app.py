"""The whole app (FastAPI + mounted Gradio) served by uvicorn on loopback, for tests that attack it over HTTP."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.paths import RAILS_DIR
from tests.support.scripted_upstream import ScriptedUpstream
from tests.support.service import TEST_ALLOWLIST
from tests.support.threaded_server import ThreadedServer
from webapp.turn.service import ChatService


@dataclass
class LiveApp:
    url: str
    data_dir: Path
    upload_dir: Path
    service: ChatService
    server_app: Any = None  # the FastAPI app being served, for tests that enumerate its routes

    def client(self, **kwargs: Any) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30, trust_env=False, **kwargs)

    def upload(self, client: httpx.Client, name: str, data: bytes) -> dict[str, Any]:
        """Upload like the browser does and return the FileData the browser would send in an event."""
        response = client.post("/gradio_api/upload", files={"files": (name, data, "image/png")})
        response.raise_for_status()
        path = response.json()[0]
        return {"path": path, "orig_name": name, "meta": {"_type": "gradio.FileData"}}


@contextmanager
def live_app(
    tmp: Path,
    upstream: ScriptedUpstream,
    monkeypatch: pytest.MonkeyPatch,
    profile: str = "generic",
    clock: Callable[[], float] | None = None,
    sweep_pause: Callable[[float], Awaitable[None]] | None = None,
    **settings: Any,
) -> Iterator[LiveApp]:
    from webapp.config import load_settings
    from webapp.upstream.profiles import get_profile
    from webapp.web.app import Upstream, build_service, create_app
    from webapp.web.requestline import http_protocol

    monkeypatch.delenv("GRADIO_TEMP_DIR", raising=False)  # each app its own private upload folder
    data = tmp / "data"
    merged = {"rails": RAILS_DIR, "url_allowlist": TEST_ALLOWLIST, **settings}
    config = load_settings(data_dir=data, llm_url=upstream.base_url, **merged)
    service = build_service(
        config, Upstream(upstream.base_url), served_model=upstream.model, profile=get_profile(profile)
    )
    # The asyncio loop, not uvloop: uvloop resolves names in C, past the egress log's resolver patch.
    seams = {"clock": clock, "sweep_pause": sweep_pause}
    app = create_app(config, service, **{name: seam for name, seam in seams.items() if seam is not None})
    protocol = http_protocol(header_timeout_s=config.http_header_timeout_s)
    server = ThreadedServer(app, loop="asyncio", http=protocol).start()  # as run_app serves it
    try:
        yield LiveApp(server.url, data, data / "gradio-tmp", service, app)
    finally:
        server.stop()


def module_upstream() -> Any:
    """A scripted upstream fixture named ``upstream`` that lives as long as the test module: modules whose
    live app is module-scoped assign it (``upstream = module_upstream()``) in place of the per-test one."""

    @pytest.fixture(scope="module", name="upstream")
    def upstream() -> Iterator[ScriptedUpstream]:
        server = ScriptedUpstream().start()
        yield server
        server.stop()

    return upstream


@contextmanager
def module_live_app(
    tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream, name: str, **settings: Any
) -> Iterator[LiveApp]:
    """`live_app` for a module-scoped fixture (pytest's ``monkeypatch`` lives only as long as one test)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        with live_app(tmp_path_factory.mktemp(name), upstream, monkeypatch, **settings) as live:
            yield live


def wait_for(condition: Callable[[], object], timeout_s: float = 20.0) -> None:
    """A live server acts on a closed connection in its own time: poll the condition, bounded."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.02)
