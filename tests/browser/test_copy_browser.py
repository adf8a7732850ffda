"""Copying a message gives its text as it passed the rails (markdown source), never the HTML the Chatbot holds
and never text the rails held back. Checked through the real clipboard of Chromium."""

from __future__ import annotations

from tests.browser.conftest import send, wait_idle
from tests.support.scripted_upstream import Script

ANSWER = (
    "**Bold** and a [wiki link](https://en.wikipedia.org/wiki/Rail) and `code` & <b>raw</b>\n\n- one\n- two"
)


def copied(page, index: int) -> str:
    """Click the copy button of the ``index``-th message that has one (negative: from the end)."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.evaluate("navigator.clipboard.writeText('')")
    buttons = page.locator("#chatbot .message-copy .copy_code_button")
    buttons.nth(index if index >= 0 else buttons.count() + index).click()
    page.wait_for_timeout(300)
    return page.evaluate("navigator.clipboard.readText()")


def test_copy_gives_the_markdown_that_passed_not_html(page, browser_upstream) -> None:
    browser_upstream.push(Script(answer=[ANSWER]))
    send(page, "Format *this* for me")
    wait_idle(page)
    answer = copied(page, -1)
    assert answer == ANSWER  # before: the rendered HTML (<strong>, <a href=...>, &amp;lt;b&amp;gt;)
    assert "<strong>" not in answer and "href=" not in answer
    assert copied(page, 0) == "Format *this* for me"  # the user's own message, as typed


def test_copy_of_a_stopped_answer_leaves_out_the_link_still_held_back(page, browser_upstream) -> None:
    browser_upstream.push(
        Script(answer=["Here is the summary. ", "[details](https://evil.exa"], endless=True, delay_s=0.3)
    )
    send(page, "Summarise")
    page.wait_for_function(
        "() => document.querySelector('#chatbot').innerText.includes('summary')", timeout=15_000
    )
    page.locator("#input button.stop-button, #input button[aria-label='Stop']").first.click()
    wait_idle(page, timeout_ms=10_000)
    answer = copied(page, -1)
    assert answer.startswith("Here is the summary.") and "evil" not in answer and "details" not in answer
