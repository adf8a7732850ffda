"""Persistent sessions for railchat: SQLite (WAL) by default, PostgreSQL by URL, Alembic-migrated."""

from webapp.store.records import (
    AnnotationInfo,
    AttachmentIn,
    AttachmentInfo,
    MessageInfo,
    RailEventInfo,
    SessionInfo,
    StoreError,
)
from webapp.store.store import Store

__all__ = [
    "AnnotationInfo",
    "AttachmentIn",
    "AttachmentInfo",
    "MessageInfo",
    "RailEventInfo",
    "SessionInfo",
    "Store",
    "StoreError",
]
