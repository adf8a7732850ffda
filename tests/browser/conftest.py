"""The real app (FastAPI + mounted Gradio) on loopback, in Debian's Chromium driven by playwright."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import RAILS_DIR
from tests.support.scripted_upstream import ScriptedUpstream
from tests.support.service import TEST_ALLOWLIST
from tests.support.threaded_server import ThreadedServer

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = Path(os.environ.get("RAILCHAT_SCREENSHOTS", "/tmp/railchat-screenshots"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="module")
def browser_upstream() -> Iterator[ScriptedUpstream]:
    server = ScriptedUpstream(max_model_len=32768).start()  # Kimi-sized window
    yield server
    server.stop()


@pytest.fixture(scope="module")
def app_url(browser_upstream: ScriptedUpstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from webapp.config import load_settings
    from webapp.upstream.profiles import get_profile
    from webapp.web.app import Upstream, build_service, create_app

    data = tmp_path_factory.mktemp("app")
    settings = load_settings(
        data_dir=data, llm_url=browser_upstream.base_url, rails=RAILS_DIR, url_allowlist=TEST_ALLOWLIST
    )
    service = build_service(
        settings,
        Upstream(browser_upstream.base_url),
        served_model=browser_upstream.model,
        profile=get_profile("kimi-k2.5"),
    )
    server = ThreadedServer(create_app(settings, service)).start()
    yield server.url + "/"
    server.stop()


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("RAILCHAT_REQUIRE_ALL"):
            pytest.fail("Debian's chromium is required (apt-get install chromium)")
        pytest.skip("Debian's chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser, app_url: str):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.goto(app_url)
    page.wait_for_selector("#input textarea", timeout=30_000)
    yield page
    context.close()


def send(page, text: str) -> None:
    page.fill("#input textarea", text)
    page.keyboard.press("Enter")


def wait_idle(page, timeout_ms: int = 30_000) -> None:
    page.wait_for_timeout(300)
    page.wait_for_function("() => !document.querySelector('#input textarea').disabled", timeout=timeout_ms)


def shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
