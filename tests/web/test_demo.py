"""Demo mode: signed visitor ids, invite links and the refusal page, and limits on turns that never lose
what a visitor sent."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse
from fastapi.testclient import TestClient

from webapp.store import Store, invites
from webapp.turn.events import SessionReady, TurnDone, TurnRequest
from webapp.web import ownership
from webapp.web.demo import DemoAdmission, DemoGate

SECRET = "test-secret"


def gated_app(store: Store, *, invite_only: bool, clock=lambda: datetime.now(UTC)) -> TestClient:
    inner = FastAPI()

    @inner.get("/{path:path}")
    async def echo(request: Request, path: str) -> PlainTextResponse:
        return PlainTextResponse(f"chat for {ownership.owner_of(request)}")

    inner.add_middleware(DemoGate, store=store, invite_only=invite_only, clock=clock, cache_s=0)
    inner.add_middleware(ownership.OwnerCookie, ids=ownership.OwnerIds(SECRET, lifetime_s=3600))
    return TestClient(inner, base_url="http://127.0.0.1:7860")


def test_every_browser_gets_a_signed_id_that_survives_reloads(store: Store) -> None:
    client = gated_app(store, invite_only=False)
    first = client.get("/")
    owner = first.text.removeprefix("chat for ")
    assert owner.startswith("browser:") and "httponly" in first.headers["set-cookie"].lower()
    again = client.get("/")
    assert again.text == first.text and "set-cookie" not in again.headers
    other = gated_app(store, invite_only=False).get("/")
    assert other.text != first.text


@pytest.mark.parametrize(
    "forgery",
    [
        {"cookies": {ownership.COOKIE: "alice.0000"}},
        {"cookies": {ownership.COOKIE: "alice"}},
        {"headers": {"x-railchat-browser": "victim"}},  # only the gate may vouch for an id
        {"headers": {"Cookie": 'railchat-visitor="a\\"b; x'}},
    ],
)
def test_forged_visitor_ids_get_a_fresh_id(store: Store, forgery: dict) -> None:
    client = gated_app(store, invite_only=False)
    cookies = forgery.get("cookies")
    if cookies:
        client.cookies.update(cookies)
    response = client.get("/", headers=forgery.get("headers"))
    assert response.status_code == 200
    assert (
        "victim" not in response.text and "alice" not in response.text.removeprefix("chat for browser:")[:6]
    )
    assert "set-cookie" in response.headers


def test_invite_only_refuses_without_an_invite_on_every_path(store: Store) -> None:
    client = gated_app(store, invite_only=True)
    for path in ("/", "/gradio_api/queue/join", "/gradio_api/file=x", "/config"):
        response = client.get(path)
        assert response.status_code == 403 and "chat for" not in response.text
        assert "by invitation only" in response.text
    assert client.get("/healthz").status_code == 200


def test_a_valid_invite_lets_the_visitor_in_and_leaves_the_address_bar(store: Store) -> None:
    token, _ = invites.create_invite(store, hours=1, messages=5)
    client = gated_app(store, invite_only=True)
    arrived = client.get(f"/?invite={token}", follow_redirects=False)
    assert arrived.status_code == 303 and arrived.headers["location"] == "/"
    assert client.get("/").text.startswith("chat for browser:")
    assert client.get("/gradio_api/queue/join").status_code == 200
    assert gated_app(store, invite_only=True).get("/").status_code == 403  # another browser: no invite


@pytest.mark.parametrize("state", ["expired", "revoked", "unknown"])
def test_bad_invites_get_a_clear_page(store: Store, state: str) -> None:
    now = [datetime.now(UTC)]
    token, _ = invites.create_invite(store, hours=1, messages=5)
    if state == "revoked":
        invites.revoke_invite(store, token)
    if state == "expired":
        now[0] += timedelta(hours=2)
    client = gated_app(store, invite_only=True, clock=lambda: now[0])
    response = client.get(f"/?invite={token if state != 'unknown' else 'made-up'}")
    assert response.status_code == 403
    words = {"expired": "has expired", "revoked": "was withdrawn", "unknown": "is not valid"}[state]
    assert words in response.text and "nosniff" in response.headers["x-content-type-options"]


def test_an_invite_that_expires_while_visiting_closes_the_chat(store: Store) -> None:
    now = [datetime.now(UTC)]
    token, _ = invites.create_invite(store, hours=1, messages=5)
    client = gated_app(store, invite_only=True, clock=lambda: now[0])
    client.get(f"/?invite={token}")
    assert client.get("/").status_code == 200
    now[0] += timedelta(hours=1, seconds=1)
    refused = client.get("/")
    assert refused.status_code == 403 and "has expired" in refused.text


async def turn(service, owner: str, text: str) -> list:
    return [e async for e in service.run_turn(TurnRequest(owner=owner, text=text))]


async def test_over_the_limit_the_message_is_stored_and_the_visitor_told_when(service, store: Store) -> None:
    clock = [datetime(2026, 11, 30, 12, 0, tzinfo=UTC)]
    service.admission = DemoAdmission(store, per_minute=1, concurrent=4, queue=4, clock=lambda: clock[0])
    first = await turn(service, "browser:v", "first")
    assert first[-1].status == "complete"
    clock[0] += timedelta(seconds=15)
    second = await turn(service, "browser:v", "second, over the limit")
    done = second[-1]
    assert isinstance(done, TurnDone) and done.status == "error" and done.code == "rate_limited"
    assert "Try again in 45 s" in (done.message or "")
    session = next(e for e in second if isinstance(e, SessionReady)).session_id
    stored = store.messages(session)
    assert [(m.role, m.content, m.status) for m in stored] == [
        ("user", "second, over the limit", "complete"),
        ("assistant", "", "error"),
    ]
    assert "Try again" in (stored[1].error or "")


async def test_turns_wait_for_a_free_slot_and_give_it_back(service, store: Store) -> None:
    waits: list[float] = []
    gate = asyncio.Event()

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        await gate.wait()

    admission = DemoAdmission(store, per_minute=10, concurrent=1, queue=1, sleep=sleep)
    service.admission = admission
    async with admission(TurnRequest(owner="browser:x", text="holding the only slot")):
        waiting = asyncio.create_task(turn(service, "browser:y", "queued"))
        while not waits:
            await asyncio.sleep(0.01)
        busy = await turn(service, "browser:z", "queue full")
        assert busy[-1].code == "busy" and "busy" in busy[-1].message
    gate.set()
    queued = await waiting
    assert queued[-1].status == "complete"
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM turn_slots").scalar() == 0
