"""Demo limits kept in the database, so they hold across app replicas: messages per minute per visitor
(a sliding window), an invite's message quota, and global turn slots (running + waiting).

Each check-and-record is one write transaction. On SQLite that transaction begins IMMEDIATE, so checks
never interleave; on PostgreSQL the visitor's row (per-visitor limits) or a transaction-scoped advisory
lock (the global slots) serialises them. A slot carries an expiry that its holder renews: a replica that
dies mid-turn frees its slots when they expire instead of keeping the demo busy for ever.
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import Connection, Table, delete, func, insert, select, text, update

from webapp.store import models
from webapp.store.invites import INVITES, VISITORS, InviteInfo, invite_info
from webapp.store.store import Store

HITS = cast(Table, models.RateHit.__table__)
SLOTS = cast(Table, models.TurnSlot.__table__)
WINDOW = timedelta(minutes=1)
_SLOTS_LOCK_KEY = 7_370_002  # any constant; serialises slot bookkeeping on PostgreSQL


@dataclass(frozen=True)
class Refusal:
    """Why a message was not answered now, and when trying again makes sense (None: it will not)."""

    code: str  # rate_limited | quota_exhausted | invite_invalid | busy
    message: str
    retry_after_s: int | None = None


@dataclass(frozen=True)
class Slot:
    id: str
    running: bool


def _lock_visitor(conn: Connection, visitor: str, now: datetime) -> InviteInfo | None:
    """Create or lock the visitor's row; returns the invite they came with, if any."""
    if conn.execute(select(VISITORS.c.owner).where(VISITORS.c.owner == visitor)).first() is None:
        conn.execute(insert(VISITORS).values(owner=visitor, invite_id=None, created_at=now))
    locked = select(VISITORS.c.invite_id).where(VISITORS.c.owner == visitor)
    if conn.dialect.name == "postgresql":
        locked = locked.with_for_update()
    invite_id = conn.execute(locked).scalar_one()
    if invite_id is None:
        return None
    return invite_info(conn.execute(select(INVITES).where(INVITES.c.id == invite_id)).one())


def _invite_refusal(invite: InviteInfo | None, now: datetime, required: bool) -> Refusal | None:
    if invite is None:
        return Refusal("invite_invalid", "This demo needs an invite link.") if required else None
    state = invite.state(now)
    if state == "used up":
        return Refusal("quota_exhausted", f"This invite has used all of its {invite.message_quota} messages.")
    if state != "valid":
        return Refusal("invite_invalid", f"This invite link is {state}.")
    return None


def admit_message(
    store: Store, visitor: str, *, per_minute: int, invite_required: bool, now: datetime
) -> Refusal | None:
    """Count one message against the visitor's minute and their invite's quota, or say why not."""
    with store.transaction(write=True) as conn:
        invite = _lock_visitor(conn, visitor, now)
        refusal = _invite_refusal(invite, now, invite_required)
        if refusal is not None:
            return refusal
        start = now - WINDOW
        conn.execute(delete(HITS).where(HITS.c.visitor == visitor, HITS.c.at <= start))
        hits = (
            conn.execute(select(HITS.c.at).where(HITS.c.visitor == visitor).order_by(HITS.c.at))
            .scalars()
            .all()
        )
        if len(hits) >= per_minute:
            wait = max(1, math.ceil((hits[len(hits) - per_minute] + WINDOW - now).total_seconds()))
            plural = "s" if per_minute != 1 else ""
            return Refusal(
                "rate_limited",
                f"You can send {per_minute} message{plural} a minute. Try again in {wait} s.",
                wait,
            )
        conn.execute(insert(HITS).values(visitor=visitor, at=now))
        if invite is not None:
            conn.execute(
                update(INVITES)
                .where(INVITES.c.id == invite.id)
                .values(messages_used=INVITES.c.messages_used + 1)
            )
    return None


def _lock_slots(conn: Connection, now: datetime) -> tuple[int, int]:
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SLOTS_LOCK_KEY})
    conn.execute(delete(SLOTS).where(SLOTS.c.expires_at <= now))
    counts: dict[str, int] = dict(
        conn.execute(select(SLOTS.c.state, func.count()).group_by(SLOTS.c.state)).tuples().all()
    )
    return counts.get("running", 0), counts.get("waiting", 0)


def take_slot(
    store: Store, visitor: str, *, concurrent: int, queue: int, ttl: timedelta, now: datetime
) -> Slot | Refusal:
    """A running slot if one is free and nobody waits before us, a place in the queue, or a refusal."""
    with store.transaction(write=True) as conn:
        running, waiting = _lock_slots(conn, now)
        start = running < concurrent and waiting == 0
        if not start and waiting >= queue:
            return Refusal(
                "busy",
                f"The demo is busy ({running} chats running, {waiting} waiting). Try again in 30 s.",
                30,
            )
        slot = Slot(secrets.token_hex(8), running=start)
        conn.execute(
            insert(SLOTS).values(
                id=slot.id,
                visitor=visitor,
                state="running" if start else "waiting",
                created_at=now,
                expires_at=now + ttl,
            )
        )
    return slot


def try_start(store: Store, slot_id: str, *, concurrent: int, ttl: timedelta, now: datetime) -> bool | None:
    """Start a waiting slot if a turn is free and it is first in line; renews its expiry either way.
    None when the slot is gone (it expired)."""
    with store.transaction(write=True) as conn:
        running, _ = _lock_slots(conn, now)
        renewed = conn.execute(update(SLOTS).where(SLOTS.c.id == slot_id).values(expires_at=now + ttl))
        if renewed.rowcount == 0:
            return None
        first = conn.execute(
            select(SLOTS.c.id)
            .where(SLOTS.c.state == "waiting")
            .order_by(SLOTS.c.created_at, SLOTS.c.id)
            .limit(1)
        ).scalar_one_or_none()
        if running >= concurrent or first != slot_id:
            return False
        conn.execute(update(SLOTS).where(SLOTS.c.id == slot_id).values(state="running"))
    return True


def renew_slot(store: Store, slot_id: str, *, ttl: timedelta, now: datetime) -> None:
    with store.transaction(write=True) as conn:
        conn.execute(update(SLOTS).where(SLOTS.c.id == slot_id).values(expires_at=now + ttl))


def release_slot(store: Store, slot_id: str) -> None:
    with store.transaction(write=True) as conn:
        conn.execute(delete(SLOTS).where(SLOTS.c.id == slot_id))
