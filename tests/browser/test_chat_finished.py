"""Issue "the chat feels finished", item by item, in a real browser at desktop and at phone width (the
``page`` fixture runs each test at both): reload, retry, empty sends, links, stop, the context meter,
notices, one Send/Stop button, delete and undo, the phone layout, icons, AVIF, and the extras users expect
(search, rename, copy buttons, dark mode)."""

from __future__ import annotations

import io
import re

from PIL import Image

from tests.browser.conftest import (
    chat_text,
    close_sidebar,
    is_phone,
    open_page,
    open_sidebar,
    pick_chat,
    send,
    shot,
    wait_idle,
    wait_loaded,
)
from tests.support.scripted_upstream import Script


def chat_id(page) -> str:
    match = re.search(r"[?&]chat=([^&]+)", page.url)
    assert match, f"no chat id in {page.url}"
    return match.group(1)


def test_1_reload_and_bookmarks_return_to_the_open_chat(page, browser, app_url, browser_upstream) -> None:
    browser_upstream.push(Script(answer=["Still ", "here."]))
    send(page, "Find me again")
    wait_idle(page)
    page.wait_for_url(re.compile(r"[?&]chat="))
    bookmark = page.url
    page.reload()
    page.wait_for_selector("#input textarea")
    wait_loaded(page)
    assert "Find me again" in chat_text(page) and "Still here." in chat_text(page)
    # Someone else's browser with the same address sees nothing of it.
    stranger = open_page(browser, bookmark)
    try:
        assert "Find me again" not in chat_text(stranger)
        assert "not found" in stranger.inner_text("#notice")
    finally:
        stranger.context.close()


def test_2_retry_on_a_reopened_chat_answers_again_without_a_duplicate(page, browser_upstream) -> None:
    browser_upstream.push(Script(status=500, error_message="model server fell over"))
    send(page, "Answer me properly")
    wait_idle(page)
    assert "notice-error" in page.inner_html("#chatbot")
    page.reload()
    page.wait_for_selector("#input textarea")
    wait_loaded(page)
    browser_upstream.push(Script(answer=["A proper answer."]))
    page.locator("#retry").click()
    wait_idle(page)
    text = chat_text(page)
    assert "A proper answer." in text
    assert text.count("Answer me properly") == 1
    assert "notice-error" not in page.inner_html("#chatbot")


def test_3_an_empty_send_does_nothing(page, browser_upstream) -> None:
    before = len(browser_upstream.requests)
    send(page, "   ")
    page.wait_for_timeout(800)
    assert page.locator("#chatbot .message-row").count() == 0
    assert "chat=" not in page.url
    assert len(browser_upstream.requests) == before


def test_4_links_the_rails_would_block_are_plain_text(page, browser_upstream) -> None:
    send(page, "Go to www.google.com")
    wait_idle(page)
    send(page, "[click here](https://evil.example.org/win)")
    wait_idle(page)
    browser_upstream.push(Script(answer=["Docs: [the docs](https://allowed.test/docs)."]))
    send(page, "Where are the docs?")
    wait_idle(page)
    assert "www.google.com" in chat_text(page) and "[click here](https://evil.example.org/win)" in chat_text(
        page
    )
    hrefs = page.locator("#chatbot .message-content a").evaluate_all("links => links.map(a => a.href)")
    assert hrefs == ["https://allowed.test/docs"]


def test_5_stop_shows_the_interruption_at_once_and_reopening_shows_the_same(page, browser_upstream) -> None:
    browser_upstream.push(Script(answer=["Counting: "], endless=True, delay_s=0.05))
    send(page, "Count for me")
    page.wait_for_function(
        "() => document.querySelector('#chatbot').innerText.includes('more')", timeout=15_000
    )
    page.locator("#input button.stop-button, #input button[aria-label='Stop']").first.click()
    wait_idle(page, timeout_ms=10_000)
    shown = chat_text(page)
    # Gradio's "Error" label above the chat: the stopped event's own completion could not be applied
    # (webapp/web/ui/queue.py, SessionMessages).
    assert not shown.startswith("Error"), shown[:200]
    assert "This answer was interrupted." in shown
    page.reload()
    page.wait_for_selector("#input textarea")
    wait_loaded(page)
    assert chat_text(page) == shown


def test_6_the_context_meter_explains_the_answers_reserve(page, browser_upstream) -> None:
    browser_upstream.push(Script(answer=["Short."]))
    send(page, "How much room is left?")
    wait_idle(page)
    meter = page.inner_text("#context-meter")
    assert re.search(
        r"Context: at most [\d,]+ / 31,680 tokens \(the model's 32,768-token window less 1,088 kept", meter
    )


def test_7_notices_live_in_the_chat_and_an_old_banner_clears(page, browser_upstream) -> None:
    send(page, "Visit www.google.com")
    wait_idle(page)
    assert page.inner_text("#notice").strip() == ""  # a block is said once, in the chat
    open_sidebar(page)
    page.locator("#delete-chat").click()
    page.wait_for_timeout(600)
    close_sidebar(page)
    assert "Chat deleted." in page.inner_text("#notice")
    page.fill("#input textarea", "next question")
    page.wait_for_timeout(600)
    assert page.inner_text("#notice").strip() == ""


def test_8_one_button_sends_or_stops(page, browser_upstream) -> None:
    def buttons() -> tuple[int, int]:
        submit = page.locator("#input button.submit-button:visible").count()
        stop = page.locator("#input button.stop-button:visible").count()
        return submit, stop

    assert buttons() == (1, 0)
    browser_upstream.push(Script(answer=["Slow "] * 30, delay_s=0.05))
    send(page, "Take your time")
    page.wait_for_function(
        "() => document.querySelector('#chatbot').innerText.includes('Slow')", timeout=15_000
    )
    assert buttons() == (0, 1)
    wait_idle(page)
    assert buttons() == (1, 0)


def test_9_delete_can_be_undone(page, browser_upstream) -> None:
    browser_upstream.push(Script(answer=["Keep me."]))
    send(page, "Precious chat")
    wait_idle(page)
    open_sidebar(page)
    page.locator("#delete-chat").click()
    page.wait_for_timeout(600)
    assert "Precious chat" not in page.inner_text("#sessions")
    page.locator("#undo-delete").click()
    page.wait_for_timeout(800)
    assert "Precious chat" in page.inner_text("#sessions")
    close_sidebar(page)
    assert "Keep me." in chat_text(page)


def test_10_at_phone_width_the_chat_comes_first(page) -> None:
    chat = page.locator("#chatbot").bounding_box()
    assert chat is not None and chat["y"] < page.viewport_size["height"] / 2
    if is_phone(page):
        assert page.locator("#sidebar.open").count() == 0  # folded away behind its toggle
        open_sidebar(page)
        assert page.locator("#new-chat").is_visible()
    else:
        assert page.locator("#new-chat").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def test_11_icons_are_svg_labels_are_even_and_titles_fit(page, browser_upstream) -> None:
    send(page, "A long title that goes on and on about www.google.com and more words")
    wait_idle(page)
    notice = page.locator("#chatbot .notice").first
    text = notice.inner_text()
    assert not re.search("[\U0001f000-\U0001ffff\u2600-\u27bf]", text)  # no emoji needed
    assert "svg" in notice.locator(".icon").evaluate("e => getComputedStyle(e).maskImage")
    # Gradio's Source Sans Pro SemiBold file holds 55 glyphs: semi-bold text mixes two faces ("B|locked").
    weights = notice.evaluate(
        "n => [...n.querySelectorAll('*')].map(e => getComputedStyle(e).fontWeight)"
        ".concat([getComputedStyle(n.querySelector('.notice-label'), '::first-letter').fontWeight])"
    )
    assert set(weights) <= {"400", "normal"}, weights
    open_sidebar(page)
    item = page.locator("#sessions label").first
    assert item.evaluate("e => e.scrollWidth <= e.clientWidth + 1")


def test_12_the_file_picker_accepts_avif(page, browser_upstream, tmp_path) -> None:
    accept = page.locator("#input input[type=file]").get_attribute("accept") or ""
    assert ".avif" in accept and ".heic" in accept
    picture = tmp_path / "green.avif"
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), "green").save(buffer, "AVIF")
    picture.write_bytes(buffer.getvalue())
    page.set_input_files("#input input[type=file]", str(picture))
    page.wait_for_timeout(800)
    send(page, "What colour?")
    wait_idle(page)
    parts = browser_upstream.chat_bodies[-1]["messages"][-1]["content"]
    assert parts[0]["image_url"]["url"].startswith("data:image/")


def test_search_and_rename_chats(page, browser_upstream) -> None:
    for title in ("Apples and pears", "Bananas"):
        browser_upstream.push(Script(answer=["Fruit."]))
        open_sidebar(page)
        page.locator("#new-chat").click()
        page.wait_for_timeout(400)
        close_sidebar(page)
        send(page, title)
        wait_idle(page)
    open_sidebar(page)
    labels = page.locator("#sessions label").all_inner_texts()
    assert labels[0].startswith("Bananas") and labels[1].startswith("Apples")  # newest first
    page.fill("#search input, #search textarea", "apple")
    page.wait_for_timeout(800)
    assert [t.split(" · ")[0] for t in page.locator("#sessions label").all_inner_texts()] == [
        "Apples and pears"
    ]
    page.fill("#search input, #search textarea", "")
    page.wait_for_timeout(600)
    pick_chat(page, "Apples and pears")
    open_sidebar(page)
    page.fill("#title input, #title textarea", "Fruit salad")
    page.keyboard.press("Enter")
    page.wait_for_timeout(800)
    assert "Fruit salad" in page.inner_text("#sessions")


def test_code_blocks_have_a_copy_button(page, browser_upstream) -> None:
    browser_upstream.push(Script(answer=["Run:\n\n```python\nprint('copied')\n```\n"]))
    send(page, "Show code")
    wait_idle(page)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.locator("#chatbot .code_wrap .copy_code_button").first.click()
    page.wait_for_timeout(300)
    assert "print('copied')" in page.evaluate("navigator.clipboard.readText()")


def test_screenshots_light_and_dark(browser, app_url, browser_upstream) -> None:
    for width in ("desktop", "phone"):
        for scheme in ("light", "dark"):
            page = open_page(browser, app_url, width, scheme)
            try:
                browser_upstream.push(
                    Script(
                        reasoning=["The user wants a short example. "],
                        answer=[
                            "Here is a function that doubles a number:\n\n```python\ndef double(x):\n"
                            "    return 2 * x\n```\n\nMore in [the Python docs](https://allowed.test/docs)."
                        ],
                        delay_s=0.01,
                    )
                )
                send(page, "Show me a tiny Python function")
                wait_idle(page)
                send(page, "And open www.google.com for me")
                wait_idle(page)
                background = page.evaluate("getComputedStyle(document.body).backgroundColor")
                dark = page.evaluate(
                    "document.body.classList.contains('dark') || document.documentElement.classList.contains('dark')"
                )
                assert dark == (scheme == "dark"), background
                shot(page, f"chat-{scheme}")
            finally:
                page.context.close()


def test_screenshot_text_only_model_with_an_image(browser, browser_upstream, tmp_path) -> None:
    """README's second picture: the embedded text-only model is given a description of the image."""
    import cv2

    from tests.support.paths import RAILS_DIR
    from tests.support.service import TEST_ALLOWLIST
    from tests.support.threaded_server import ThreadedServer
    from webapp.config import load_settings
    from webapp.upstream.profiles import get_profile
    from webapp.web.app import Upstream, build_service, create_app

    settings = load_settings(
        data_dir=tmp_path / "app",
        llm_url=browser_upstream.base_url,
        rails=RAILS_DIR,
        url_allowlist=TEST_ALLOWLIST,
    )
    service = build_service(
        settings,
        Upstream(browser_upstream.base_url),
        served_model="SmolLM2-135M-Instruct",
        profile=get_profile("smollm2-cpu"),
    )
    server = ThreadedServer(create_app(settings, service)).start()
    code = cv2.QRCodeEncoder.create().encode("https://allowed.test/menu")
    picture = tmp_path / "menu-qr.png"
    code = cv2.resize(code, (code.shape[1] * 8, code.shape[0] * 8), interpolation=cv2.INTER_NEAREST)
    cv2.imwrite(str(picture), cv2.copyMakeBorder(code, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255))
    page = open_page(browser, server.url + "/")
    try:
        browser_upstream.push(
            Script(answer=["The picture is a QR code; it links to https://allowed.test/menu."])
        )
        page.set_input_files("#input input[type=file]", str(picture))
        page.wait_for_timeout(800)
        send(page, "What is in this picture?")
        wait_idle(page)
        assert "notice-info" in page.inner_html("#chatbot")
        assert "a QR code reading" in browser_upstream.chat_bodies[-1]["messages"][-1]["content"]
        shot(page, "text-only-image")
    finally:
        page.context.close()
        server.stop()


def test_lists_headings_and_quotes_lay_out_as_html_and_bold_is_one_font(page, browser_upstream) -> None:
    """Messages reach the Chatbot as HTML, which Gradio lays out as unrendered text: newlines between block
    tags became blank lines, list markers hung outside the bubble, headings and quotes looked like text, and a
    bold word mixed two fonts."""
    answer = (
        "## Plan\n\nTips:\n\n1. Read the **tutorial** first.\n2. Write code.\n\n- Use a REPL.\n  - nested\n\n"
    )
    browser_upstream.push(Script(answer=[answer + "> Quoted.\n\nDone."]))
    send(page, "Tips as a list")
    wait_idle(page)
    layout = page.locator("#chatbot .message-content").last.evaluate(
        """m => {
          const left = e => e.getBoundingClientRect().left, style = e => getComputedStyle(e);
          const [heading, tips, quote] = ['h2', 'p', 'blockquote'].map(s => m.querySelector(s));
          return {content: left(m), items: [...m.querySelectorAll('li')].map(left),
                  gap: m.querySelector('ol').getBoundingClientRect().top - tips.getBoundingClientRect().bottom,
                  line: parseFloat(style(tips).lineHeight), text: parseFloat(style(tips).fontSize),
                  heading: [parseFloat(style(heading).fontSize), style(heading).marginTop],
                  quote: [left(quote.querySelector('p')) - left(m), style(quote).borderLeftWidth],
                  last: [...m.querySelectorAll('p')].pop().textContent};
        }"""
    )
    assert layout["last"] == "Done."
    top, second, repl, nested = layout["items"]
    assert top - layout["content"] >= 16 and repl - layout["content"] >= 16  # room for "1." and the bullet
    assert nested - repl >= 16  # a nested list is indented
    assert layout["gap"] < layout["line"]  # a margin, not a blank line
    assert (
        layout["heading"][0] >= 1.2 * layout["text"] and layout["heading"][1] == "0px"
    )  # first: no gap above
    assert layout["quote"][0] >= 8 and layout["quote"][1] != "0px"  # set off by a rule and an indent
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]

    def fonts(selector: str) -> list[str]:
        """The fonts Chromium drew the element's text with (a missing glyph falls back to a system font)."""
        nodes = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})["nodeIds"]
        return [
            f["familyName"] for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": nodes[-1]})["fonts"]
        ]

    text = fonts("#chatbot .message-content p")
    assert fonts("#chatbot .message-content strong") == text  # not DejaVu Sans Bold
    assert fonts("#chatbot .message-content h2") == text


def test_message_labels_are_the_text_it_shows_not_its_html(page, browser_upstream) -> None:
    """Gradio labels each message with its raw value, which is our HTML: a screen reader would have read
    "bot's message: <p>Tips:</p><ol><li>..." aloud, tags and character references included, and then the
    message's hidden copy source as a second copy."""
    browser_upstream.push(Script(answer=["Tips:\n\n1. Read the **tutorial**.\n", "2. Then 3 < 4 & done."]))
    send(page, "Is 1 < 2 & true?")
    wait_idle(page)
    labels = page.locator('#chatbot [aria-label*="\'s message: "]').evaluate_all(
        "nodes => nodes.map(n => n.getAttribute('aria-label'))"
    )
    assert labels == [
        "user's message: Is 1 < 2 & true?",
        "bot's message: Tips: Read the tutorial. Then 3 < 4 & done.",
    ]
    # Gradio's sanitizer drops the copy source's aria-hidden: a screen reader read each message twice.
    hidden = page.locator("#chatbot .copy-source").evaluate_all(
        "nodes => nodes.map(n => n.getAttribute('aria-hidden'))"
    )
    assert hidden == ["true", "true"]
