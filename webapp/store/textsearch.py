"""The reviewers' text filter ``q``: sessions whose title, or a message's text or reasoning, contains ``q``
as a substring (case-insensitive for ASCII letters; ``%`` and ``_`` are literal).

Two ways to find them, chosen per query because each is fast exactly where the other is slow:

- a *walk*: sessions newest first, each checked with LIKE over its messages, stopping once a page is full.
  Quick when matches are common (a page fills after a few sessions); a scan of every message when nothing
  matches (12.7 s p95 on a million messages).
- *candidates*: a full-text index names the messages and titles that may contain ``q``, and only their
  sessions are checked with the same LIKE. Quick when matches are few; slow when the index names hundreds of
  thousands of messages.

So the index is asked for at most `MAX_CANDIDATES` hits first: more than that means ``q`` is common and the
walk fills its page soon. The index only decides which rows are read; both ways answer with the same LIKE,
so a result never depends on which way ran. Text shorter than 3 characters has no trigram to look up and
always walks (it matches nearly everything anyway).

The indexes (migration 0004): on SQLite, FTS5 trigram tables ``messages_fts`` (messages no longer
streaming; the few streaming ones are read directly, by the status index) and ``sessions_fts`` (titles); on
PostgreSQL, ``pg_trgm`` GIN indexes on the LIKE's own expressions, so there the candidate query is the LIKE.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, Connection, exists, func, or_, select, text

from webapp.store.models import MESSAGES, SESSIONS
from webapp.store.records import StoreError

MAX_CANDIDATES = 2_000  # index hits beyond which the walk is the quicker way
MIN_INDEXED = 3  # trigram indexes cannot look up shorter text
STREAMING = "streaming"  # messages the SQLite index does not hold yet


def is_search_index(name: str | None, *_: object) -> bool:
    """The tables and indexes of migration 0004, which models.py does not describe (FTS5 virtual tables
    with their shadow tables, pg_trgm indexes): schema comparisons leave them out."""
    return bool(name) and (
        str(name).startswith(("messages_fts", "sessions_fts")) or str(name).endswith("_trgm")
    )


_FTS_MESSAGES = text("SELECT rowid FROM messages_fts WHERE messages_fts MATCH :phrase LIMIT :n")
_FTS_TITLES = text("SELECT session_id FROM sessions_fts WHERE sessions_fts MATCH :phrase LIMIT :n")


def like_pattern(q: str) -> str:
    escaped = q.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _title_like(pattern: str) -> ColumnElement[bool]:
    return func.lower(func.coalesce(SESSIONS.c.title, "")).like(pattern, escape="\\")


def _message_like(pattern: str) -> ColumnElement[bool]:
    m = MESSAGES.c
    return or_(
        func.lower(m.content).like(pattern, escape="\\"),
        func.lower(m.reasoning).like(pattern, escape="\\"),
    )


def walk_condition(q: str) -> ColumnElement[bool]:
    """Checked per session as the list walks newest first."""
    pattern = like_pattern(q)
    in_messages = exists().where(MESSAGES.c.session_id == SESSIONS.c.id, _message_like(pattern))
    return or_(_title_like(pattern), in_messages)


def condition(conn: Connection, q: str) -> ColumnElement[bool]:
    """The WHERE clause on sessions for ``q``: the candidates' ids when the index names few, else the walk."""
    if "\x00" in q:
        raise StoreError("the search text must not contain NUL characters")
    if len(q) < MIN_INDEXED:
        return walk_condition(q)
    found = _candidates(conn, q)
    return walk_condition(q) if found is None else SESSIONS.c.id.in_(sorted(found))


def _candidates(conn: Connection, q: str) -> set[str] | None:
    """Ids of the sessions that contain ``q``, or None when the index names too many to be worth it."""
    if conn.dialect.name == "sqlite":
        return _sqlite_candidates(conn, q)
    if conn.dialect.name == "postgresql" and _has_trigram_indexes(conn):
        return _postgres_candidates(conn, q)
    return None


def _sqlite_candidates(conn: Connection, q: str) -> set[str] | None:
    limits: dict[str, Any] = {"phrase": '"' + q.replace('"', '""') + '"', "n": MAX_CANDIDATES + 1}
    message_ids = conn.execute(_FTS_MESSAGES, limits).scalars().all()
    title_ids = conn.execute(_FTS_TITLES, limits).scalars().all()
    if len(message_ids) > MAX_CANDIDATES or len(title_ids) > MAX_CANDIDATES:
        return None
    pattern = like_pattern(q)
    m = MESSAGES.c
    sessions = _session_ids(conn, select(m.session_id).where(m.id.in_(message_ids), _message_like(pattern)))
    sessions |= _session_ids(conn, select(m.session_id).where(m.status == STREAMING, _message_like(pattern)))
    sessions |= _session_ids(
        conn, select(SESSIONS.c.id).where(SESSIONS.c.id.in_(title_ids), _title_like(pattern))
    )
    return sessions


def _postgres_candidates(conn: Connection, q: str) -> set[str] | None:
    pattern = like_pattern(q)
    queries = (
        select(MESSAGES.c.session_id).where(_message_like(pattern)),
        select(SESSIONS.c.id).where(_title_like(pattern)),
    )
    sessions: set[str] = set()
    for query in queries:
        hits = conn.execute(query.limit(MAX_CANDIDATES + 1)).scalars().all()
        if len(hits) > MAX_CANDIDATES:
            return None
        sessions.update(hits)
    return sessions


def _session_ids(conn: Connection, query: Any) -> set[str]:
    return set(conn.execute(query).scalars())


def _has_trigram_indexes(conn: Connection) -> bool:
    """Migration 0004 skips them where pg_trgm could not be installed; then only the walk is sensible."""
    names: Sequence[str] = (
        conn.execute(text("SELECT indexname FROM pg_indexes WHERE indexname = 'ix_messages_content_trgm'"))
        .scalars()
        .all()
    )
    return bool(names)
