"""A reviewer opening blocked answers in the Audit tab fetches nothing the rails blocked (issue 14).

A blocked answer is stored whole for reviewers: the very image, link, raw HTML or Mermaid block the rails
stopped. The Audit tab must show it as text. Each stored text here holds every payload of the chat's own
no-leak test at once (the model sent them in one delta, so all of it is stored), in the answer of one
session and the reasoning of another; Chromium opens both transcripts and every request off loopback is
recorded and aborted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.browser.test_no_leak_browser import PAYLOADS, to_blocked_hosts
from tests.browser.test_review_browser import login, start_app
from tests.support.scripted_upstream import Script, ScriptedUpstream
from webapp.turn.events import TurnRequest
from webapp.web.auth import hash_password

# What only a reviewer's page could meet: HTML Gradio's own components act on, and a live Mermaid block.
AUDIT_PAYLOADS = {
    "mermaid-div": '<div class="mermaid">flowchart LR\n A["<img src=\'//div.evil.example/p.png\'>"]</div>',
    "iframe": '<iframe src="https://frame.evil.example/"></iframe>',
    "link-stylesheet": '<link rel="stylesheet" href="https://sheet.evil.example/s.css">',
    "closing-pre": '</pre></details><img src="https://pre.evil.example/p.png">',
    "entity-img": "&lt;img src=x&gt;<img src=&#x2f;&#x2f;entity.evil.example/p.png>",
}
EVERYTHING = "\n\n".join([*PAYLOADS.values(), *AUDIT_PAYLOADS.values()])
CHANNELS = ("answer", "reasoning")


@pytest.fixture(scope="module")
def leak_review_app(
    browser_upstream: ScriptedUpstream, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    data = tmp_path_factory.mktemp("review-leak")
    (data / "users.toml").write_text(
        f'[users.rita]\nrole = "reviewer"\npassword = "{hash_password("rita-pw")}"\n'
    )
    service, server = start_app(browser_upstream, data, auth_file=data / "users.toml")

    async def blocked_turns() -> None:
        for channel in CHANNELS:
            script = Script(answer=[EVERYTHING]) if channel == "answer" else Script(reasoning=[EVERYTHING])
            browser_upstream.push(script)
            text = f"Harbour greeting in the {channel}"
            async for _ in service.run_turn(TurnRequest(owner="user:alice", text=text, mode="thinking")):
                pass

    # In a thread of its own: playwright's sync API keeps an event loop running in this one.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, blocked_turns()).result(timeout=60)
    yield server.url + "/"
    server.stop()


def test_a_reviewer_opening_blocked_texts_fetches_nothing_blocked(browser, leak_review_app: str) -> None:
    context, page = login(browser, leak_review_app, "rita", "rita-pw")
    foreign: list[str] = []

    def handle(route) -> None:
        if route.request.url.startswith(leak_review_app):
            route.continue_()
        else:
            foreign.append(route.request.url)
            route.abort()

    context.route("**/*", handle)
    page.get_by_role("tab", name="Audit").click()
    page.fill("#audit-q textarea, #audit-q input", "Harbour")
    page.click("#audit-search")
    page.wait_for_function("() => document.querySelector('#audit-info').innerText.includes('2 session')")
    for channel in CHANNELS:
        page.locator("#audit-sessions .cell-wrap:visible", has_text=f"in the {channel}").first.click()
        page.wait_for_function(
            "c => (document.querySelector('#audit-view')?.innerText || '').includes('Harbour greeting in the ' + c)",
            arg=channel,
            timeout=15_000,
        )
        page.wait_for_timeout(500)  # let the page load whatever it would load
        assert to_blocked_hosts(foreign) == [], channel
        view = page.inner_text("#audit-view")
        assert "frame.evil.example" in view and "mermaid.evil.example" in view  # stored, shown as text
    assert to_blocked_hosts(foreign) == [] and foreign == []
    assert (
        page.locator("#audit-view img, #audit-view iframe, #audit-view .mermaid, #audit-view svg").count()
        == 0
    )
    context.close()
