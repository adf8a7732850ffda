"""Demo mode: anonymous visitors with signed ids, invite links, and limits that hold across replicas.

``DemoGate`` (ASGI middleware, inside ``OwnerCookie``, which gives every browser a signed id) turns
``/?invite=TOKEN`` into a visitor bound to that invite (then drops the token from the address bar), and
with ``--invite-only`` answers every request from a visitor without a valid invite with a clear page
instead of the chat. ``DemoAdmission`` is the pipeline's admission: per-visitor messages per minute, the
invite's message quota, and a global number of turns running and waiting, all kept in the database.
"""

from __future__ import annotations

import asyncio
import html
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs

from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

from webapp.config import Settings
from webapp.store import Store, limits
from webapp.store import invites as invite_store
from webapp.turn.admission import Refused, chain
from webapp.turn.events import TurnRequest
from webapp.turn.service import ChatService
from webapp.web.ownership import OWNER_PREFIX, browser_of

Clock = Callable[[], datetime]
OPEN_PATHS = ("/healthz", "/metrics")  # probes and scrapers, never visitor data


def utcnow() -> datetime:
    return datetime.now(UTC)


# ---- the refusal page ------------------------------------------------------------------------------------------

REASONS = {
    None: ("This demo is by invitation only", "Open the invite link you were given to start chatting."),
    "unknown": (
        "This invite link is not valid",
        "Check that you copied the whole link, or ask for a new one.",
    ),
    "expired": ("This invite link has expired", "Ask whoever shared it for a new link."),
    "revoked": ("This invite link was withdrawn", "Ask whoever shared it for a new link."),
    "used up": ("This invite link has used all its messages", "Ask whoever shared it for a new link."),
}


def refusal_page(state: str | None) -> bytes:
    title, hint = REASONS.get(state, REASONS[None])
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>railchat demo</title><style>
body{{font-family:system-ui,sans-serif;margin:0;min-height:100vh;display:grid;place-items:center;
background:#f6f7f9;color:#1d2330}}
main{{max-width:30rem;padding:2rem 2.2rem;background:#fff;border-radius:14px;box-shadow:0 2px 14px #0002}}
h1{{font-size:1.35rem;margin:0 0 .6rem}} p{{line-height:1.5;margin:.4rem 0}} .brand{{color:#5b6578;font-size:.9rem}}
@media (prefers-color-scheme: dark){{body{{background:#15181e;color:#e6e9ef}} main{{background:#20242c}}}}
</style></head><body><main><p class="brand">railchat demo</p><h1 id="refusal">{html.escape(title)}</h1>
<p>{html.escape(hint)}</p><p>Nothing was sent to the model.</p></main></body></html>""".encode()


# ---- the gate --------------------------------------------------------------------------------------------------


@dataclass
class DemoGate:
    """Invites bound on arrival; without a valid invite, the refusal page. Runs inside ``OwnerCookie``."""

    app: ASGIApp
    store: Store
    invite_only: bool = False
    clock: Clock = utcnow
    cache_s: float = 5.0  # how long a visitor's "has a valid invite" is trusted before asking the database
    _valid_until: dict[str, float] = field(default_factory=dict)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        browser = browser_of(scope["headers"])
        if browser is None:  # OwnerCookie is missing: nobody can be told apart, so nobody gets in
            await _page(send, 403, refusal_page(None))
            return
        owner = OWNER_PREFIX + browser
        token = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("invite", [None])[0]
        if scope["type"] == "http" and scope["path"] == "/" and token is not None:
            await self._arrive(owner, token, send)
            return
        if self.invite_only and scope["path"] not in OPEN_PATHS and not await self._has_invite(owner):
            state = await asyncio.to_thread(self._invite_state, owner)
            await _refuse(scope, send, state)
            return
        await self.app(scope, receive, send)

    async def _arrive(self, owner: str, token: str, send: Send) -> None:
        invite = await asyncio.to_thread(
            invite_store.admit_visitor, self.store, owner, token, now=self.clock()
        )
        state = "unknown" if invite is None else invite.state(self.clock())
        if state != "valid":
            await _page(send, 403, refusal_page(state))
            return
        self._valid_until.pop(owner, None)
        await send({"type": "http.response.start", "status": 303, "headers": [(b"location", b"/")]})
        await send({"type": "http.response.body", "body": b""})

    async def _has_invite(self, owner: str) -> bool:
        if self._valid_until.get(owner, 0.0) > time.monotonic():
            return True
        valid = await asyncio.to_thread(self._invite_state, owner) == "valid"
        if valid:
            self._valid_until[owner] = time.monotonic() + self.cache_s
        return valid

    def _invite_state(self, owner: str) -> str | None:
        invite = invite_store.visitor_invite(self.store, owner)
        return None if invite is None else invite.state(self.clock())


async def _page(send: Send, status: int, body: bytes) -> None:
    headers = [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"cache-control", b"no-store"),
        (b"x-content-type-options", b"nosniff"),
        (b"content-security-policy", b"default-src 'none'; style-src 'unsafe-inline'"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _refuse(scope: Scope, send: Send, state: str | None) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008})
        return
    await _page(send, 403, refusal_page(state))


# ---- limits on turns -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DemoAdmission:
    """The pipeline's admission in demo mode (see webapp/turn/admission.py)."""

    store: Store
    per_minute: int
    concurrent: int
    queue: int
    invite_required: bool = False
    slot_ttl: timedelta = timedelta(minutes=11)
    poll_s: float = 0.5
    clock: Clock = utcnow
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    @asynccontextmanager
    async def __call__(self, request: TurnRequest) -> AsyncIterator[None]:
        visitor = request.owner
        refusal = await asyncio.to_thread(
            limits.admit_message,
            self.store,
            visitor,
            per_minute=self.per_minute,
            invite_required=self.invite_required,
            now=self.clock(),
        )
        if refusal is not None:
            raise Refused(refusal.message, refusal.code, refusal.retry_after_s)
        slot = await asyncio.to_thread(
            limits.take_slot,
            self.store,
            visitor,
            concurrent=self.concurrent,
            queue=self.queue,
            ttl=self.slot_ttl,
            now=self.clock(),
        )
        if isinstance(slot, limits.Refusal):
            raise Refused(slot.message, slot.code, slot.retry_after_s)
        try:
            await self._wait_turn(slot)
            yield
        finally:
            # Shielded: a cancelled turn (Stop, a closed tab) must still give its slot back.
            await asyncio.shield(asyncio.to_thread(limits.release_slot, self.store, slot.id))

    async def _wait_turn(self, slot: limits.Slot) -> None:
        running = slot.running
        while not running:
            await self.sleep(self.poll_s)
            started = await asyncio.to_thread(
                limits.try_start,
                self.store,
                slot.id,
                concurrent=self.concurrent,
                ttl=self.slot_ttl,
                now=self.clock(),
            )
            if started is None:
                raise Refused("The demo is busy. Try again in 30 s.", "busy", 30)
            running = started


def install(app: FastAPI, settings: Settings, service: ChatService) -> None:
    """Demo rules for --demo, --invite-only and --share (add before ``OwnerCookie``, which must wrap it)."""
    if not settings.demo_mode:
        return
    limits_of_demo = DemoAdmission(
        service.store,
        per_minute=settings.demo_messages_per_minute,
        concurrent=settings.concurrent_turns,
        queue=settings.queue_size,
        invite_required=settings.invite_only,
        slot_ttl=timedelta(seconds=settings.request_timeout_s + 60),
    )
    service.admission = chain(service.admission, limits_of_demo)  # after the API's cap: cheaper, no DB
    app.add_middleware(DemoGate, store=service.store, invite_only=settings.invite_only)
