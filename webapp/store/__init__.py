"""Persistent sessions for railchat: SQLite (WAL) by default, PostgreSQL by URL, Alembic-migrated."""

from webapp.store.records import (
    AnnotationInfo,
    AttachmentIn,
    AttachmentInfo,
    ContextIn,
    MessageInfo,
    RailEventIn,
    RailEventInfo,
    SessionInfo,
    StoreError,
)
from webapp.store.store import Store

__all__ = [
    "AnnotationInfo",
    "AttachmentIn",
    "AttachmentInfo",
    "ContextIn",
    "MessageInfo",
    "RailEventIn",
    "RailEventInfo",
    "SessionInfo",
    "Store",
    "StoreError",
]
