"""Demo invite links: expiring, revocable, with a message quota, kept in the database so every app
replica honours the same links.

The token in a link is 192 random bits; the database keeps only its SHA-256, so a leaked database or
backup holds no usable link. (A signature would add nothing: checking expiry, quota and revocation needs
the database row anyway.) Each invite also has a short public id, for `list` and `revoke`.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, cast

from sqlalchemy import Table, insert, or_, select, update

from webapp.store import models
from webapp.store.store import Store, StoreError

INVITES = cast(Table, models.Invite.__table__)
VISITORS = cast(Table, models.DemoVisitor.__table__)

InviteState = Literal["valid", "expired", "revoked", "used up"]


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class InviteInfo:
    id: str
    note: str
    created_at: datetime
    expires_at: datetime
    message_quota: int
    messages_used: int
    revoked_at: datetime | None

    def state(self, now: datetime) -> InviteState:
        if self.revoked_at is not None:
            return "revoked"
        if now >= self.expires_at:
            return "expired"
        if self.messages_used >= self.message_quota:
            return "used up"
        return "valid"


def invite_info(row: Any) -> InviteInfo:
    return InviteInfo(
        id=row.id,
        note=row.note,
        created_at=row.created_at,
        expires_at=row.expires_at,
        message_quota=row.message_quota,
        messages_used=row.messages_used,
        revoked_at=row.revoked_at,
    )


def create_invite(
    store: Store, *, hours: float, messages: int, note: str = "", now: datetime | None = None
) -> tuple[str, InviteInfo]:
    """A new invite; returns its token (shown once, never stored) and its record."""
    if hours <= 0 or messages <= 0:
        raise StoreError("an invite needs a positive number of hours and messages")
    now = now or datetime.now(UTC)
    # `python -m webapp.invites revoke TOKEN` would read a token starting with "-" as an option.
    while (token := secrets.token_urlsafe(24)).startswith("-"):
        pass
    invite = InviteInfo(
        id=secrets.token_hex(4),
        note=note,
        created_at=now,
        expires_at=now + timedelta(hours=hours),
        message_quota=messages,
        messages_used=0,
        revoked_at=None,
    )
    with store.transaction(write=True) as conn:
        conn.execute(insert(INVITES).values(token_hash=token_hash(token), **asdict(invite)))
    return token, invite


def list_invites(store: Store) -> list[InviteInfo]:
    with store.transaction() as conn:
        rows = conn.execute(select(INVITES).order_by(INVITES.c.created_at.desc())).all()
    return [invite_info(r) for r in rows]


def find_invite(store: Store, token: str) -> InviteInfo | None:
    with store.transaction() as conn:
        row = conn.execute(select(INVITES).where(INVITES.c.token_hash == token_hash(token))).one_or_none()
    return None if row is None else invite_info(row)


def revoke_invite(store: Store, token_or_id: str, *, now: datetime | None = None) -> bool:
    """Revoke by the token itself or by the public id `list` shows. False if there is no such invite."""
    which = or_(INVITES.c.token_hash == token_hash(token_or_id), INVITES.c.id == token_or_id)
    with store.transaction(write=True) as conn:
        result = conn.execute(
            update(INVITES)
            .where(which, INVITES.c.revoked_at.is_(None))
            .values(revoked_at=now or datetime.now(UTC))
        )
        known = conn.execute(select(INVITES.c.id).where(which)).first() is not None
    return result.rowcount > 0 or known


def admit_visitor(store: Store, owner: str, token: str, *, now: datetime | None = None) -> InviteInfo | None:
    """Tie a visitor to the invite they came with, if it is valid now; the invite is returned either way."""
    now = now or datetime.now(UTC)
    invite = find_invite(store, token)
    if invite is None or invite.state(now) != "valid":
        return invite
    with store.transaction(write=True) as conn:
        known = conn.execute(select(VISITORS.c.owner).where(VISITORS.c.owner == owner)).first()
        if known is None:
            conn.execute(insert(VISITORS).values(owner=owner, invite_id=invite.id, created_at=now))
        else:
            conn.execute(update(VISITORS).where(VISITORS.c.owner == owner).values(invite_id=invite.id))
    return invite


def visitor_invite(store: Store, owner: str) -> InviteInfo | None:
    with store.transaction() as conn:
        row = conn.execute(
            select(INVITES)
            .join(VISITORS, VISITORS.c.invite_id == INVITES.c.id)
            .where(VISITORS.c.owner == owner)
        ).one_or_none()
    return None if row is None else invite_info(row)
