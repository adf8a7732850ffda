"""What reviewers read: the filtered session list (keyset-paged), one session whole, annotations, the
export stream and stored images.

Reviewers see every owner's sessions, deleted ones included, and the stored text of blocked answers; who
may call this is decided in ``webapp.web``. The list is paged by a cursor over (updated_at, id) rather
than an offset, so page 500 costs what page 1 costs and a session that moves while a reviewer pages is
neither skipped nor shown twice; ties on updated_at are broken by id. Exports walk the same keyset in batches and
never load blob bytes, so memory stays flat however many sessions match (see review_export.py).
"""

from __future__ import annotations

import base64
import binascii
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Select, String, exists, func, insert, select, tuple_

from webapp.store import textsearch
from webapp.store.models import ANNOTATIONS, ATTACHMENTS, BLOBS, MESSAGES, RAIL_EVENTS, SESSIONS
from webapp.store.records import AnnotationInfo, StoreError
from webapp.store.store import Store

BLOCK = "block"  # the decision a blocking rail verdict is stored with
MAX_PAGE = 200
MAX_LABEL = 100
MAX_NOTE = 10_000


class NotFound(StoreError):
    """The session or message named does not exist."""


@dataclass(frozen=True)
class SessionFilter:
    """The reviewers' filters; every field is optional and they combine with AND."""

    owner: str | None = None
    client: str | None = None
    status: str | None = None
    rail: str | None = None  # sessions with a blocking verdict of this rail
    model: str | None = None
    since: datetime | None = None  # on updated_at (last activity), inclusive
    until: datetime | None = None  # exclusive
    q: str | None = None  # text in the title, a message or its reasoning (see textsearch.py)


@dataclass(frozen=True)
class SessionSummary:
    id: str
    owner: str
    client: str
    title: str | None
    model: str
    created_at: datetime
    updated_at: datetime
    message_count: int
    statuses: dict[str, int]
    rails: list[str]  # names of rails that blocked something in the session
    deleted: bool


@dataclass(frozen=True)
class SessionPage:
    sessions: list[SessionSummary]
    next_cursor: str | None


# ---- cursor ------------------------------------------------------------------------------------------------


def encode_cursor(updated_at: datetime, session_id: str) -> str:
    raw = f"{updated_at.astimezone(UTC).isoformat()}|{session_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        stamp, _, session_id = raw.partition("|")
        when = datetime.fromisoformat(stamp)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise StoreError("invalid cursor") from None
    if not session_id or when.tzinfo is None:
        raise StoreError("invalid cursor")
    return when, session_id


# ---- queries -----------------------------------------------------------------------------------------------


def _filtered(conn: Connection, query: Select[Any], f: SessionFilter) -> Select[Any]:
    s = SESSIONS.c
    simple = [(f.owner, s.owner), (f.client, s.client), (f.model, s.model)]
    for wanted, column in simple:
        if wanted is not None:
            query = query.where(column == wanted)
    if f.since is not None:
        query = query.where(s.updated_at >= f.since)
    if f.until is not None:
        query = query.where(s.updated_at < f.until)
    if f.status is not None:
        query = query.where(exists().where(MESSAGES.c.session_id == s.id, MESSAGES.c.status == f.status))
    if f.rail is not None:
        query = query.where(
            exists().where(
                RAIL_EVENTS.c.rail == f.rail,
                RAIL_EVENTS.c.decision == BLOCK,
                RAIL_EVENTS.c.session_id == s.id,
            )
        )
    if f.q:
        query = query.where(textsearch.condition(conn, f.q))
    return query


def page_query(conn: Connection, f: SessionFilter, limit: int, cursor: str | None) -> Select[Any]:
    query = _filtered(conn, select(SESSIONS), f)
    if cursor:
        when, session_id = decode_cursor(cursor)
        s = SESSIONS.c
        # One row-value comparison in the index's own order: SQLite walks ix_sessions_updated backwards
        # from the cursor (an OR of two conditions made it scan and sort the whole table).
        query = query.where(tuple_(s.updated_at, s.id) < tuple_(when, session_id))
    return query.order_by(SESSIONS.c.updated_at.desc(), SESSIONS.c.id.desc()).limit(limit)


def list_sessions(
    store: Store, f: SessionFilter, *, limit: int = 50, cursor: str | None = None
) -> SessionPage:
    """Newest activity first; next_cursor is None on the last page."""
    limit = max(1, min(limit, MAX_PAGE))
    with store.transaction() as conn:
        rows = conn.execute(page_query(conn, f, limit + 1, cursor)).all()
        more = len(rows) > limit
        rows = rows[:limit]
        ids = [r.id for r in rows]
        statuses, rails = _status_counts(conn, ids), _blocking_rails(conn, ids)
    sessions = [
        SessionSummary(
            id=r.id,
            owner=r.owner,
            client=r.client,
            title=r.title,
            model=r.model,
            created_at=r.created_at,
            updated_at=r.updated_at,
            message_count=r.message_count,
            statuses=dict(statuses[r.id]),
            rails=sorted(rails[r.id]),
            deleted=r.deleted_at is not None,
        )
        for r in rows
    ]
    last = rows[-1] if rows else None
    next_cursor = encode_cursor(last.updated_at, last.id) if more and last is not None else None
    return SessionPage(sessions, next_cursor)


def _status_counts(conn: Connection, ids: list[str]) -> dict[str, Counter[str]]:
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    if ids:
        query = (
            select(MESSAGES.c.session_id, MESSAGES.c.status, func.count())
            .where(MESSAGES.c.session_id.in_(ids))
            .group_by(MESSAGES.c.session_id, MESSAGES.c.status)
        )
        for session_id, status, n in conn.execute(query):
            counts[session_id][status] = n
    return counts


def _blocking_rails(conn: Connection, ids: list[str]) -> dict[str, set[str]]:
    rails: dict[str, set[str]] = defaultdict(set)
    if ids:
        query = (
            select(RAIL_EVENTS.c.session_id, RAIL_EVENTS.c.rail)
            .where(RAIL_EVENTS.c.session_id.in_(ids), RAIL_EVENTS.c.decision == BLOCK)
            .distinct()
        )
        for session_id, rail in conn.execute(query):
            rails[session_id].add(rail)
    return rails


# ---- annotations -------------------------------------------------------------------------------------------


def session_annotations(store: Store, session_id: str) -> list[AnnotationInfo]:
    """Every note on the session and on its messages, oldest first."""
    with store.transaction() as conn:
        rows = conn.execute(
            select(ANNOTATIONS).where(ANNOTATIONS.c.session_id == session_id).order_by(ANNOTATIONS.c.id)
        ).all()
    return [_annotation(r) for r in rows]


def add_annotation(
    store: Store, session_id: str, *, message_id: int | None, author: str, label: str, note: str
) -> AnnotationInfo:
    """A note never touches the message or its hash-chain link: it lives in its own table."""
    label, note = label.strip(), note.strip()
    if not label or len(label) > MAX_LABEL:
        raise StoreError(f"label must be 1 to {MAX_LABEL} characters")
    if len(note) > MAX_NOTE:
        raise StoreError(f"note must be at most {MAX_NOTE} characters")
    now = datetime.now(UTC)
    with store.transaction(write=True) as conn:
        if conn.execute(select(SESSIONS.c.id).where(SESSIONS.c.id == session_id)).first() is None:
            raise NotFound(f"no session {session_id!r}")
        if message_id is not None:
            owner_session = conn.execute(
                select(MESSAGES.c.session_id).where(MESSAGES.c.id == message_id)
            ).scalar_one_or_none()
            if owner_session != session_id:
                raise NotFound(f"message {message_id} is not in session {session_id!r}")
        values = dict(
            session_id=session_id,
            message_id=message_id,
            author=author,
            label=label,
            text=note,
            created_at=now,
        )
        new_id = conn.execute(insert(ANNOTATIONS).values(values).returning(ANNOTATIONS.c.id)).scalar_one()
    return AnnotationInfo(
        id=new_id,
        message_id=message_id,
        author=author,
        text=note,
        created_at=now,
        label=label,
        session_id=session_id,
    )


def _annotation(r: Any) -> AnnotationInfo:
    return AnnotationInfo(
        id=r.id,
        message_id=r.message_id,
        author=r.author,
        text=r.text,
        created_at=r.created_at,
        label=r.label,
        session_id=r.session_id,
    )


# ---- images ------------------------------------------------------------------------------------------------


def stored_image(store: Store, sha256: str, *, thumbnail: bool = False) -> bytes | None:
    """The stored (re-encoded) bytes of an attachment, by the sha256 of the original upload."""
    column = ATTACHMENTS.c.thumbnail_sha256 if thumbnail else ATTACHMENTS.c.data_sha256
    query = (
        select(BLOBS.c.data)
        .join(ATTACHMENTS, column == BLOBS.c.sha256)
        .where(ATTACHMENTS.c.sha256 == sha256)
        .limit(1)
    )
    with store.transaction() as conn:
        data = conn.execute(query).scalar_one_or_none()
    return None if data is None else bytes(data)


# ---- overview ----------------------------------------------------------------------------------------------


def overview(store: Store, f: SessionFilter, *, bucket: str = "day") -> dict[str, list[dict[str, Any]]]:
    """Counts for the Audit tab's plots: answers per period, blocks per rail, errors per period."""
    day = func.substr(func.cast(MESSAGES.c.created_at, String), 1, 13 if bucket == "hour" else 10)
    answers = MESSAGES.c.role == "assistant"
    with store.transaction() as conn:
        matching = _filtered(conn, select(SESSIONS.c.id), f).subquery()
        in_scope = MESSAGES.c.session_id.in_(select(matching.c.id))
        turns = conn.execute(
            select(day.label("period"), MESSAGES.c.status, func.count())
            .where(answers, in_scope)
            .group_by("period", MESSAGES.c.status)
            .order_by("period")
        ).all()
        blocks = conn.execute(
            select(RAIL_EVENTS.c.rail, RAIL_EVENTS.c.stage, func.count())
            .join(MESSAGES, MESSAGES.c.id == RAIL_EVENTS.c.message_id)
            .where(in_scope, RAIL_EVENTS.c.decision == BLOCK)
            .group_by(RAIL_EVENTS.c.rail, RAIL_EVENTS.c.stage)
        ).all()
    return {
        "turns": [{"period": p, "status": st, "count": n} for p, st, n in turns],
        "errors": [{"period": p, "count": n} for p, st, n in turns if st in ("error", "interrupted")],
        "blocks": [{"rail": r, "stage": stg, "count": n} for r, stg, n in blocks],
    }
