"""Table definitions of the session store.

The initial Alembic revision creates exactly these tables; `tests/store/test_store.py` checks the two never drift
apart. Timestamps are stored as naive UTC (SQLite has no time zones) and come back as aware UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp that is always UTC, whatever the database does with time zones."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: pass an aware UTC datetime")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    pass


class Session(Base):
    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    owner: Mapped[str] = mapped_column(String(255))
    client: Mapped[str] = mapped_column(String(16))
    title: Mapped[str | None] = mapped_column(String(500))
    model: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # Also the allocator of message seq numbers (incremented under the row lock).
    message_count: Mapped[int] = mapped_column(Integer, default=0)
    # Hash chain state: the newest link and how many links there are, so a removed tail is detectable.
    chain_head: Mapped[str] = mapped_column(String(64), default="")
    chain_length: Mapped[int] = mapped_column(Integer, default=0)

    __table_args__ = (
        Index("ix_sessions_owner_updated", "owner", "updated_at"),
        # The reviewers' list: newest first, optionally by client (see webapp/store/review.py).
        Index("ix_sessions_updated", "updated_at", "id"),
        Index("ix_sessions_client_updated", "client", "updated_at"),
    )


class Message(Base):
    __tablename__ = "messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    session_id: Mapped[str] = mapped_column(String(64), ForeignKey("sessions.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    role: Mapped[str] = mapped_column(String(16))
    content: Mapped[str] = mapped_column(Text, default="")
    reasoning: Mapped[str] = mapped_column(Text, default="")
    # What the chatter was shown when it differs from content (e.g. a refusal replacing a blocked answer).
    shown_content: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    mode: Mapped[str | None] = mapped_column(String(32))
    params: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    model: Mapped[str | None] = mapped_column(String(255))
    prompt_tokens: Mapped[int | None] = mapped_column(Integer)
    completion_tokens: Mapped[int | None] = mapped_column(Integer)
    ttft_ms: Mapped[float | None] = mapped_column(Float)
    duration_ms: Mapped[float | None] = mapped_column(Float)
    finish_reason: Mapped[str | None] = mapped_column(String(64))
    error: Mapped[str | None] = mapped_column(Text)
    # Tool turns: an assistant's calls in OpenAI's shape, and the call a "tool" message answers.
    tool_calls: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON)
    tool_call_id: Mapped[str | None] = mapped_column(String(128))
    context_tokens: Mapped[int | None] = mapped_column(Integer)
    context_dropped: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # Hash chain: set when the message reaches a final status (see webapp/store/chain.py).
    chain_pos: Mapped[int | None] = mapped_column(Integer)
    prev_hash: Mapped[str | None] = mapped_column(String(64))
    hash: Mapped[str | None] = mapped_column(String(64))

    __table_args__ = (
        UniqueConstraint("session_id", "seq", name="uq_messages_session_seq"),
        # "sessions holding a message in status X" without touching the message rows.
        Index("ix_messages_status_session", "status", "session_id"),
    )


class Blob(Base):
    """Attachment bytes, stored once per distinct content (key: sha256 of the stored bytes)."""

    __tablename__ = "blobs"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class Attachment(Base):
    __tablename__ = "attachments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    message_id: Mapped[int] = mapped_column(Integer, ForeignKey("messages.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64))  # of the original upload
    mime: Mapped[str] = mapped_column(String(100))
    size: Mapped[int] = mapped_column(Integer)  # of the original upload
    width: Mapped[int] = mapped_column(Integer)
    height: Mapped[int] = mapped_column(Integer)
    data_sha256: Mapped[str] = mapped_column(String(64), ForeignKey("blobs.sha256"))
    thumbnail_sha256: Mapped[str | None] = mapped_column(String(64), ForeignKey("blobs.sha256"))
    error: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        Index("ix_attachments_message", "message_id"),
        Index("ix_attachments_sha256", "sha256"),
    )


class RailEvent(Base):
    __tablename__ = "rail_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    # The message's session, repeated so "sessions a rail blocked in" is one index probe per session.
    session_id: Mapped[str] = mapped_column(String(64), ForeignKey("sessions.id", ondelete="CASCADE"))
    message_id: Mapped[int] = mapped_column(Integer, ForeignKey("messages.id", ondelete="CASCADE"))
    stage: Mapped[str] = mapped_column(String(32))
    rail: Mapped[str] = mapped_column(String(100))
    decision: Mapped[str] = mapped_column(String(32))
    reason: Mapped[str] = mapped_column(Text)
    latency_ms: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())

    __table_args__ = (
        Index("ix_rail_events_message", "message_id"),
        Index("ix_rail_events_rail_decision", "rail", "decision", "session_id"),
    )


class ContextRecord(Base):
    """One row per message that was part of the context an answer was generated from."""

    __tablename__ = "context_records"

    answer_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("messages.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[int] = mapped_column(Integer, ForeignKey("messages.id", ondelete="CASCADE"))

    __table_args__ = (Index("ix_context_records_message", "message_id"),)


class Annotation(Base):
    """A reviewer's label and note on a message, or on a whole session (message_id None)."""

    __tablename__ = "annotations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    session_id: Mapped[str] = mapped_column(String(64), ForeignKey("sessions.id", ondelete="CASCADE"))
    message_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("messages.id", ondelete="CASCADE"), nullable=True
    )
    author: Mapped[str] = mapped_column(String(255))
    label: Mapped[str] = mapped_column(String(100), default="")
    text: Mapped[str] = mapped_column(Text)  # the note
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())

    __table_args__ = (
        Index("ix_annotations_message", "message_id"),
        Index("ix_annotations_session", "session_id"),
    )


class Invite(Base):
    """A demo invite link. Only a hash of its token is kept: the database never holds a usable link."""

    __tablename__ = "invites"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)  # public handle for list/revoke
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    note: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    message_quota: Mapped[int] = mapped_column(Integer)
    messages_used: Mapped[int] = mapped_column(Integer, default=0)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class DemoVisitor(Base):
    """Which invite a demo visitor (an anonymous owner id) came in with."""

    __tablename__ = "demo_visitors"

    owner: Mapped[str] = mapped_column(String(255), primary_key=True)
    invite_id: Mapped[str | None] = mapped_column(String(32), ForeignKey("invites.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class RateHit(Base):
    """One admitted message of a visitor: the per-minute limit counts these in a sliding window."""

    __tablename__ = "rate_hits"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    visitor: Mapped[str] = mapped_column(String(255))
    at: Mapped[datetime] = mapped_column(UTCDateTime())

    __table_args__ = (Index("ix_rate_hits_visitor_at", "visitor", "at"),)


class TurnSlot(Base):
    """A turn running or waiting, shared by every app replica on the database. A slot whose holder died
    expires, so a crashed replica cannot keep the demo busy forever."""

    __tablename__ = "turn_slots"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    visitor: Mapped[str] = mapped_column(String(255))
    state: Mapped[str] = mapped_column(String(16))  # running | waiting
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())

    __table_args__ = (Index("ix_turn_slots_state", "state", "expires_at"),)


# Core handles on the tables: the store writes with SQLAlchemy Core, not through ORM objects.
SESSIONS = cast(Table, Session.__table__)
MESSAGES = cast(Table, Message.__table__)
BLOBS = cast(Table, Blob.__table__)
ATTACHMENTS = cast(Table, Attachment.__table__)
RAIL_EVENTS = cast(Table, RailEvent.__table__)
CONTEXT = cast(Table, ContextRecord.__table__)
ANNOTATIONS = cast(Table, Annotation.__table__)
