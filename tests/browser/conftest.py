"""The real app (FastAPI + mounted Gradio) on loopback, in Debian's Chromium driven by playwright."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import RAILS_DIR, ROOT
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
# Screenshots are test artifacts (gitignored); README's pictures are refreshed from them.
SHOTS = Path(os.environ.get("RAILCHAT_SCREENSHOTS", ROOT / "test-artifacts" / "screenshots"))
VIEWPORTS = {"desktop": {"width": 1200, "height": 900}, "phone": {"width": 390, "height": 844}}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="module")
def browser_upstream() -> Iterator[ScriptedUpstream]:
    server = ScriptedUpstream(max_model_len=32768).start()  # Kimi-sized window
    yield server
    server.stop()


def start_app(upstream: ScriptedUpstream, data: Path, profile: str, **settings: object) -> ThreadedServer:
    """The whole app (UI, API, doors) over ``upstream`` in a thread, with the test rails and ``settings``."""
    from webapp.config import load_settings
    from webapp.upstream.profiles import get_profile
    from webapp.web.app import Upstream, build_service, create_app

    loaded = load_settings(
        data_dir=data, llm_url=upstream.base_url, rails=RAILS_DIR, url_allowlist=TEST_ALLOWLIST, **settings
    )
    service = build_service(
        loaded, Upstream(upstream.base_url), served_model=upstream.model, profile=get_profile(profile)
    )
    return ThreadedServer(create_app(loaded, service)).start()


@pytest.fixture(scope="module")
def app_url(browser_upstream: ScriptedUpstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = start_app(browser_upstream, tmp_path_factory.mktemp("app"), "kimi-k2.5")
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


@pytest.fixture(params=list(VIEWPORTS))
def page(request: pytest.FixtureRequest, browser, app_url: str):
    """A fresh visitor (own browser storage) at desktop and at phone width."""
    page = open_page(browser, app_url, request.param)
    yield page
    page.context.close()


def open_page(browser, url: str, width: str = "desktop", scheme: str = "light"):
    context = browser.new_context(viewport=VIEWPORTS[width], color_scheme=scheme)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#input textarea", timeout=30_000)
    wait_loaded(page)
    return page


def wait_loaded(page, timeout_ms: int = 30_000) -> None:
    """Until the page's load event (owner, the chat named in the URL, the chat list) has finished."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => [...document.querySelectorAll('#notice [data-testid=status-tracker], "
        "#chatbot [data-testid=status-tracker]')].every(t => t.classList.contains('hide'))",
        timeout=timeout_ms,
    )
    page.wait_for_timeout(300)


def is_phone(page) -> bool:
    return page.viewport_size["width"] <= 768


def open_sidebar(page) -> None:
    """On a phone the sidebar waits behind its toggle."""
    if page.locator("#sidebar.open").count() == 0:
        page.locator("#sidebar > button").first.click()
        page.wait_for_timeout(400)


def close_sidebar(page) -> None:
    if is_phone(page) and page.locator("#sidebar.open").count():
        page.locator("#sidebar > button").first.click()
        page.wait_for_timeout(400)


def pick_chat(page, title: str) -> None:
    open_sidebar(page)
    page.locator("#sessions label", has_text=title).first.click()
    page.wait_for_timeout(800)
    close_sidebar(page)


def send(page, text: str) -> None:
    page.fill("#input textarea", text)
    page.keyboard.press("Enter")


def wait_idle(page, timeout_ms: int = 30_000) -> None:
    """Until the turn is over: the input is emptied when the turn starts and unlocked when it ends."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => { const box = document.querySelector('#input textarea'); return !box.disabled && box.value === ''; }",
        timeout=timeout_ms,
    )
    page.wait_for_timeout(200)


def chat_text(page) -> str:
    """What a reader sees in the chat: each message's copy source (rendered, but out of sight) left out."""
    return page.evaluate(
        """() => {
          const chat = document.querySelector('#chatbot').cloneNode(true);
          chat.querySelectorAll('.copy-source').forEach(n => n.remove());
          document.body.appendChild(chat);
          const text = chat.innerText;
          chat.remove();
          return text;
        }"""
    )


def shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    width = "phone" if is_phone(page) else "desktop"
    path = SHOTS / f"{name}-{width}.png"
    page.screenshot(path=str(path))
    return path
