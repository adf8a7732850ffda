"""Text search for the reviewers' ``q`` filter: indexes that find a substring without reading every message.

SQLite: two FTS5 tables with the trigram tokenizer (every substring of 3+ characters can be looked up,
case-insensitively). ``messages_fts`` is an external-content index over ``messages`` (the text is not stored
twice) holding every message that is no longer streaming: checkpoints rewrite a growing answer every half
second, and re-indexing it each time would tax the write path for text nobody searches yet; streaming
messages are few and the query checks them directly. ``sessions_fts`` holds titles of 3+ characters with
their session id; its rows are found again for an update or delete by their own old title, so no table scan
runs in the write path. Triggers keep both in step with every insert, update and delete (cascades
included). An external-content index must be told exactly the text it indexed when a row leaves it, so only these
triggers may change it. A later migration that rebuilds ``messages`` or ``sessions`` (SQLite batch mode
copies the table) drops these triggers and must create them again.

PostgreSQL: ``pg_trgm`` GIN indexes on the very expressions the filter's LIKE uses, so the planner answers
the LIKE from the index. Where the database user may not create the extension the indexes are skipped with
a warning: search still answers, by reading the messages.

Existing rows are indexed here (the backfill).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import logging

from alembic import op
from sqlalchemy.exc import DBAPIError

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")

TRIGRAM = "tokenize='trigram case_sensitive 0'"
INDEXED = "status != 'streaming'"  # messages the FTS index holds


def _phrase(column: str) -> str:
    """An FTS5 phrase that matches the text of ``column`` itself (double quotes doubled)."""
    return f"""'"' || replace({column}, '"', '""') || '"'"""


# One trigger per event, so a row always leaves the index before its new text enters it: the order in
# which two triggers on one event fire is not something SQLite promises.
SQLITE = [
    f"""CREATE VIRTUAL TABLE messages_fts USING fts5(
        content, reasoning, content='messages', content_rowid='id', {TRIGRAM})""",
    f"""CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN new.{INDEXED} BEGIN
        INSERT INTO messages_fts(rowid, content, reasoning) VALUES (new.id, new.content, new.reasoning);
    END""",
    f"""CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, reasoning, status ON messages
    WHEN (old.{INDEXED} OR new.{INDEXED}) AND (old.status IS NOT new.status
        OR old.content IS NOT new.content OR old.reasoning IS NOT new.reasoning) BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, content, reasoning)
        SELECT 'delete', old.id, old.content, old.reasoning WHERE old.{INDEXED};
        INSERT INTO messages_fts(rowid, content, reasoning)
        SELECT new.id, new.content, new.reasoning WHERE new.{INDEXED};
    END""",
    f"""CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN old.{INDEXED} BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, content, reasoning)
        VALUES ('delete', old.id, old.content, old.reasoning);
    END""",
    f"INSERT INTO messages_fts(rowid, content, reasoning) SELECT id, content, reasoning FROM messages "
    f"WHERE {INDEXED}",
    f"CREATE VIRTUAL TABLE sessions_fts USING fts5(title, session_id UNINDEXED, {TRIGRAM})",
    """CREATE TRIGGER sessions_fts_insert AFTER INSERT ON sessions WHEN length(new.title) >= 3 BEGIN
        INSERT INTO sessions_fts(title, session_id) VALUES (new.title, new.id);
    END""",
    f"""CREATE TRIGGER sessions_fts_retitle AFTER UPDATE OF title ON sessions
    WHEN old.title IS NOT new.title BEGIN
        DELETE FROM sessions_fts WHERE rowid IN (
            SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH {_phrase("coalesce(old.title, '')")}
        ) AND session_id = old.id;
        INSERT INTO sessions_fts(title, session_id) SELECT new.title, new.id WHERE length(new.title) >= 3;
    END""",
    f"""CREATE TRIGGER sessions_fts_delete AFTER DELETE ON sessions WHEN length(old.title) >= 3 BEGIN
        DELETE FROM sessions_fts WHERE rowid IN (
            SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH {_phrase("old.title")}
        ) AND session_id = old.id;
    END""",
    "INSERT INTO sessions_fts(title, session_id) SELECT title, id FROM sessions WHERE length(title) >= 3",
]

TRIGGERS = (
    "messages_fts_insert",
    "messages_fts_update",
    "messages_fts_delete",
    "sessions_fts_insert",
    "sessions_fts_retitle",
    "sessions_fts_delete",
)
SQLITE_DOWN = [
    *(f"DROP TRIGGER IF EXISTS {name}" for name in TRIGGERS),
    "DROP TABLE IF EXISTS messages_fts",
    "DROP TABLE IF EXISTS sessions_fts",
]

# The same expressions as the LIKE in webapp/store/textsearch.py, or the planner cannot use them.
POSTGRES = {
    "ix_messages_content_trgm": "messages USING gin (lower(content) gin_trgm_ops)",
    "ix_messages_reasoning_trgm": "messages USING gin (lower(reasoning) gin_trgm_ops)",
    "ix_sessions_title_trgm": "sessions USING gin (lower(coalesce(title, '')) gin_trgm_ops)",
}


def _postgres_upgrade() -> None:
    bind = op.get_bind()
    savepoint = bind.begin_nested()
    try:
        bind.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except DBAPIError as error:  # the package is missing, or the user may not create extensions
        savepoint.rollback()
        log.warning("pg_trgm unavailable (%s): reviewers' text search will read every message", error)
        return
    savepoint.commit()
    for name, target in POSTGRES.items():
        op.execute(f"CREATE INDEX {name} ON {target}")


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for statement in SQLITE:
            op.execute(statement)
    elif dialect == "postgresql":
        _postgres_upgrade()


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for statement in SQLITE_DOWN:
            op.execute(statement)
    elif dialect == "postgresql":
        for name in POSTGRES:
            op.execute(f"DROP INDEX IF EXISTS {name}")
