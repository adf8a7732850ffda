"""Session rows: creating, finding, listing, hiding from their owner, and purging after the retention time.

Functions take an open connection, so `Store` decides the transaction and several steps can share one.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, get_args

from sqlalchemy import Connection, Row, Select, delete, exists, or_, select, update

from webapp.store import statements
from webapp.store.chain import GENESIS
from webapp.store.models import ANNOTATIONS, ATTACHMENTS, BLOBS, CONTEXT, MESSAGES, RAIL_EVENTS, SESSIONS
from webapp.store.records import Client, SessionInfo, StoreError

CLIENTS = frozenset(get_args(Client))
_PURGE_BATCH = 500  # session ids per DELETE ... IN (...)


def now() -> datetime:
    return datetime.now(UTC)


def new_session_id() -> str:
    """A random, URL-safe id that never starts with "-" (command lines would read it as an option)."""
    while (candidate := secrets.token_urlsafe(16)).startswith("-"):
        pass
    return candidate


def insert_session(conn: Connection, *, owner: str, client: Client, model: str, title: str | None) -> str:
    if client not in CLIENTS:
        raise StoreError(f"unknown client {client!r}")
    session_id = new_session_id()
    created = now()
    row = {
        "id": session_id,
        "owner": owner,
        "client": client,
        "title": title,
        "model": model,
        "created_at": created,
        "updated_at": created,
        "deleted_at": None,
        "message_count": 0,
        "chain_head": GENESIS,
        "chain_length": 0,
    }
    conn.execute(statements.INSERT_SESSION, row)
    return session_id


def find_session(conn: Connection, session_id: str) -> SessionInfo | None:
    row = conn.execute(select(SESSIONS).where(SESSIONS.c.id == session_id)).one_or_none()
    return None if row is None else session_info(row)


def sessions_query(
    *,
    owner: str | None,
    include_deleted: bool,
    status: str | None,
    since: datetime | None,
    until: datetime | None,
    rail: str | None,
    limit: int,
) -> Select[Any]:
    """Newest activity first. status: has a message in that status; rail: has an event of that rail."""
    query = select(SESSIONS)
    if owner is not None:
        query = query.where(SESSIONS.c.owner == owner)
    if not include_deleted:
        query = query.where(SESSIONS.c.deleted_at.is_(None))
    if since is not None:
        query = query.where(SESSIONS.c.updated_at >= since)
    if until is not None:
        query = query.where(SESSIONS.c.updated_at < until)
    if status is not None:
        query = query.where(
            exists().where(MESSAGES.c.session_id == SESSIONS.c.id, MESSAGES.c.status == status)
        )
    if rail is not None:
        query = query.where(
            exists()
            .select_from(RAIL_EVENTS.join(MESSAGES, RAIL_EVENTS.c.message_id == MESSAGES.c.id))
            .where(MESSAGES.c.session_id == SESSIONS.c.id, RAIL_EVENTS.c.rail == rail)
        )
    return query.order_by(SESSIONS.c.updated_at.desc(), SESSIONS.c.id).limit(limit)


def soft_delete(conn: Connection, session_id: str, *, owner: str) -> bool:
    result = conn.execute(
        update(SESSIONS)
        .where(SESSIONS.c.id == session_id, SESSIONS.c.owner == owner)
        .where(SESSIONS.c.deleted_at.is_(None))
        .values(deleted_at=now())
    )
    return result.rowcount == 1


def restore(conn: Connection, session_id: str, *, owner: str) -> bool:
    result = conn.execute(
        update(SESSIONS)
        .where(SESSIONS.c.id == session_id, SESSIONS.c.owner == owner)
        .where(SESSIONS.c.deleted_at.is_not(None))
        .values(deleted_at=None)
    )
    return result.rowcount == 1


def set_title(conn: Connection, session_id: str, title: str | None) -> None:
    conn.execute(update(SESSIONS).where(SESSIONS.c.id == session_id).values(title=title))


def purge_before(conn: Connection, cutoff: datetime) -> int:
    """Delete every session (deleted or not) without activity since `cutoff`, and blobs nobody uses any more."""
    session_ids = list(
        conn.execute(select(SESSIONS.c.id).where(SESSIONS.c.updated_at < cutoff).with_for_update()).scalars()
    )
    for start in range(0, len(session_ids), _PURGE_BATCH):
        _delete_sessions(conn, session_ids[start : start + _PURGE_BATCH])
    if session_ids:
        conn.execute(
            delete(BLOBS).where(
                ~exists().where(ATTACHMENTS.c.data_sha256 == BLOBS.c.sha256),
                ~exists().where(ATTACHMENTS.c.thumbnail_sha256 == BLOBS.c.sha256),
            )
        )
    return len(session_ids)


def _delete_sessions(conn: Connection, session_ids: Sequence[str]) -> None:
    message_ids = select(MESSAGES.c.id).where(MESSAGES.c.session_id.in_(session_ids)).scalar_subquery()
    conn.execute(
        delete(CONTEXT).where(
            or_(CONTEXT.c.answer_id.in_(message_ids), CONTEXT.c.message_id.in_(message_ids))
        )
    )
    # Notes on a whole session have no message; rail events carry their session too.
    for table in (ANNOTATIONS, RAIL_EVENTS):
        conn.execute(delete(table).where(table.c.session_id.in_(session_ids)))
    conn.execute(delete(ATTACHMENTS).where(ATTACHMENTS.c.message_id.in_(message_ids)))
    conn.execute(delete(MESSAGES).where(MESSAGES.c.session_id.in_(session_ids)))
    conn.execute(delete(SESSIONS).where(SESSIONS.c.id.in_(session_ids)))


def session_info(row: Row[Any]) -> SessionInfo:
    return SessionInfo(
        id=row.id,
        owner=row.owner,
        client=row.client,
        title=row.title,
        model=row.model,
        created_at=row.created_at,
        updated_at=row.updated_at,
        deleted_at=row.deleted_at,
        message_count=row.message_count,
        chain_head=row.chain_head,
        chain_length=row.chain_length,
    )
