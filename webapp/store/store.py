"""The session store: sessions, messages, attachments, rail events, context records, annotations.

Synchronous SQLAlchemy Core on one engine, safe to share between threads (async callers use
``asyncio.to_thread``). Every public method is one short transaction.

SQLite: WAL, a 30 s busy timeout, foreign keys on. Write transactions start with ``BEGIN IMMEDIATE`` (a
deferred one that reads first fails at once with "database is locked" when it tries to write) and queue
in arrival order on an in-process lock; other processes meet the busy timeout. PostgreSQL: seq numbers
and hash-chain links are allocated by an ``UPDATE ... RETURNING`` on the session row, whose row lock
serialises writers of the same session while different sessions write in parallel.
"""

from __future__ import annotations

import base64
import json
import secrets
import threading
from collections import defaultdict, deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    Row,
    Table,
    and_,
    create_engine,
    delete,
    event,
    exists,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import StaticPool

from webapp.store import models
from webapp.store.chain import FINAL_STATUSES, GENESIS, STATUSES, canonical_json, link_hash, sha256_hex
from webapp.store.records import (
    AnnotationInfo,
    AttachmentIn,
    AttachmentInfo,
    Client,
    FinalStatus,
    MessageInfo,
    RailEventInfo,
    Role,
    SessionInfo,
)

SESSIONS = cast(Table, models.Session.__table__)
MESSAGES = cast(Table, models.Message.__table__)
BLOBS = cast(Table, models.Blob.__table__)
ATTACHMENTS = cast(Table, models.Attachment.__table__)
RAIL_EVENTS = cast(Table, models.RailEvent.__table__)
CONTEXT = cast(Table, models.ContextRecord.__table__)
ANNOTATIONS = cast(Table, models.Annotation.__table__)

MIGRATIONS = Path(__file__).with_name("migrations")
# More connections than the threads that may call at once (asyncio.to_thread runs at most 32), so no caller
# waits in the pool queue, whose wake-ups are not first come, first served.
POOL: dict[str, Any] = {"pool_size": 16, "max_overflow": 64, "pool_timeout": 60}
EXPORT_FORMAT = "railchat-session/1"
CLIENTS = frozenset({"ui", "api", "demo"})
ROLES = frozenset({"system", "user", "assistant"})
INTERRUPTED_ERROR = "the server stopped while this answer was being generated"
_MIGRATION_LOCK_KEY = 7_370_001  # any constant; serialises concurrent upgrades on PostgreSQL


class StoreError(ValueError):
    """A call that breaks the store's rules (unknown id, final message changed, bad value)."""


def _now() -> datetime:
    return datetime.now(UTC)


def normalize_url(url: str) -> str:
    """Accept the usual PostgreSQL spellings and use the psycopg 3 driver the project installs."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def _sqlite_engine(url: URL) -> Engine:
    in_memory = url.database in (None, "", ":memory:")
    if not in_memory:
        Path(cast(str, url.database)).expanduser().parent.mkdir(parents=True, exist_ok=True)
    pooling: dict[str, Any] = {"poolclass": StaticPool} if in_memory else POOL
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, **pooling)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # the "begin" hook below issues BEGIN itself
        cursor = dbapi_conn.cursor()
        if not in_memory:
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA foreign_keys=ON")
        # Survives the app being killed; only an OS crash can lose the last commits.
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("write") else "BEGIN")

    return engine


def make_engine(url: str) -> Engine:
    parsed = make_url(normalize_url(url))
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(parsed)
    return create_engine(parsed, pool_pre_ping=True, **POOL)


class FairLock:
    """A lock granted in arrival order. threading.Lock lets the releasing thread take it straight back,
    which under steady load starves a waiter for longer than any timeout."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._waiters: deque[threading.Event] = deque()
        self._held = False

    def __enter__(self) -> None:
        with self._mutex:
            if not self._held:
                self._held = True
                return
            turn = threading.Event()
            self._waiters.append(turn)
        turn.wait()  # release() hands the lock over: _held stays True

    def __exit__(self, *exc: object) -> None:
        with self._mutex:
            if self._waiters:
                self._waiters.popleft().set()
            else:
                self._held = False


def upgrade(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (safe to run from several processes at once)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    with engine.connect() as conn:
        conn.execution_options(write=True)
        with conn.begin():
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK_KEY})
            config.attributes["connection"] = conn
            command.upgrade(config, "head")


def new_session_id() -> str:
    """A random, URL-safe id that never starts with "-" (command lines would read it as an option)."""
    while (candidate := secrets.token_urlsafe(16)).startswith("-"):
        pass
    return candidate


class Store:
    def __init__(self, url: str) -> None:
        self.url = normalize_url(url)
        self.engine = make_engine(self.url)
        # SQLite runs one writer at a time anyway; queueing them here, in order, replaces its busy-wait
        # polling (unfair, and slow to notice a free lock). Other processes still meet the busy timeout.
        self._write_gate: FairLock | None = FairLock() if self.engine.dialect.name == "sqlite" else None
        upgrade(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        with self._write_gate or nullcontext(), self.engine.connect() as conn:
            conn.execution_options(write=True)
            with conn.begin():
                yield conn

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            with conn.begin():
                yield conn

    # sessions ------------------------------------------------------------------------------------------

    def create_session(self, *, owner: str, client: Client, model: str, title: str | None = None) -> str:
        if client not in CLIENTS:
            raise StoreError(f"unknown client {client!r}")
        session_id = new_session_id()
        now = _now()
        with self._write() as conn:
            conn.execute(
                insert(SESSIONS).values(
                    id=session_id,
                    owner=owner,
                    client=client,
                    title=title,
                    model=model,
                    created_at=now,
                    updated_at=now,
                    deleted_at=None,
                    message_count=0,
                    chain_head=GENESIS,
                    chain_length=0,
                )
            )
        return session_id

    def get_session(self, session_id: str) -> SessionInfo | None:
        with self._read() as conn:
            row = conn.execute(select(SESSIONS).where(SESSIONS.c.id == session_id)).one_or_none()
        return None if row is None else _session_info(row)

    def set_title(self, session_id: str, title: str | None) -> None:
        with self._write() as conn:
            conn.execute(update(SESSIONS).where(SESSIONS.c.id == session_id).values(title=title))

    def list_sessions(
        self,
        *,
        owner: str | None = None,
        include_deleted: bool = False,
        status: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        rail: str | None = None,
        limit: int = 100,
    ) -> list[SessionInfo]:
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
        query = query.order_by(SESSIONS.c.updated_at.desc(), SESSIONS.c.id).limit(limit)
        with self._read() as conn:
            return [_session_info(row) for row in conn.execute(query)]

    def soft_delete(self, session_id: str, *, owner: str) -> bool:
        """Hide a session from its owner; reviewers still see it. False if not theirs or already deleted."""
        with self._write() as conn:
            result = conn.execute(
                update(SESSIONS)
                .where(SESSIONS.c.id == session_id, SESSIONS.c.owner == owner)
                .where(SESSIONS.c.deleted_at.is_(None))
                .values(deleted_at=_now())
            )
        return result.rowcount == 1

    # messages ------------------------------------------------------------------------------------------

    def add_message(
        self,
        session_id: str,
        *,
        role: Role,
        content: str,
        status: str = "complete",
        reasoning: str = "",
        mode: str | None = None,
        params: dict[str, Any] | None = None,
        model: str | None = None,
        attachments: Sequence[AttachmentIn] = (),
        error: str | None = None,
    ) -> int:
        if role not in ROLES:
            raise StoreError(f"unknown role {role!r}")
        if status not in STATUSES:
            raise StoreError(f"unknown status {status!r}")
        now = _now()
        with self._write() as conn:
            seq = conn.execute(
                update(SESSIONS)
                .where(SESSIONS.c.id == session_id)
                .values(message_count=SESSIONS.c.message_count + 1, updated_at=now)
                .returning(SESSIONS.c.message_count)
            ).scalar_one_or_none()
            if seq is None:
                raise StoreError(f"no session {session_id!r}")
            message_id = conn.execute(
                insert(MESSAGES)
                .values(
                    session_id=session_id,
                    seq=seq,
                    role=role,
                    content=content,
                    reasoning=reasoning,
                    status=status,
                    mode=mode,
                    params=params,
                    model=model,
                    error=error,
                    created_at=now,
                    updated_at=now,
                )
                .returning(MESSAGES.c.id)
            ).scalar_one()
            pairs = [self._insert_attachment(conn, message_id, i, a) for i, a in enumerate(attachments)]
            if status in FINAL_STATUSES:
                _link(
                    conn,
                    session_id,
                    message_id,
                    seq=seq,
                    role=role,
                    content=content,
                    reasoning=reasoning,
                    status=status,
                    attachments=pairs,
                )
        return message_id

    def checkpoint(self, message_id: int, *, content: str, reasoning: str) -> None:
        """Save the text streamed so far; one small UPDATE, meant to be called every fraction of a second."""
        with self._write() as conn:
            result = conn.execute(
                update(MESSAGES)
                .where(MESSAGES.c.id == message_id, MESSAGES.c.status == "streaming")
                .values(content=content, reasoning=reasoning, updated_at=_now())
            )
        if result.rowcount != 1:
            raise StoreError(f"message {message_id} is not streaming")

    def finish_message(
        self,
        message_id: int,
        *,
        status: FinalStatus,
        content: str,
        reasoning: str,
        finish_reason: str | None = None,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        ttft_ms: float | None = None,
        duration_ms: float | None = None,
        error: str | None = None,
        shown_content: str | None = None,
    ) -> None:
        """Give a streaming message its final status and its hash-chain link. Final messages never change."""
        if status not in FINAL_STATUSES:
            raise StoreError(f"not a final status: {status!r}")
        now = _now()
        with self._write() as conn:
            row = conn.execute(
                update(MESSAGES)
                .where(MESSAGES.c.id == message_id, MESSAGES.c.status == "streaming")
                .values(
                    status=status,
                    content=content,
                    reasoning=reasoning,
                    finish_reason=finish_reason,
                    prompt_tokens=prompt_tokens,
                    completion_tokens=completion_tokens,
                    ttft_ms=ttft_ms,
                    duration_ms=duration_ms,
                    error=error,
                    shown_content=shown_content,
                    updated_at=now,
                )
                .returning(MESSAGES.c.session_id, MESSAGES.c.seq, MESSAGES.c.role)
            ).one_or_none()
            if row is None:
                raise StoreError(f"message {message_id} is not streaming (unknown or already final)")
            conn.execute(update(SESSIONS).where(SESSIONS.c.id == row.session_id).values(updated_at=now))
            _link(
                conn,
                row.session_id,
                message_id,
                seq=row.seq,
                role=row.role,
                content=content,
                reasoning=reasoning,
                status=status,
                attachments=_attachment_pairs(conn, message_id),
            )

    def mark_interrupted(self) -> int:
        """At startup: every message still "streaming" was cut off by a crash; make it "interrupted".

        Call it before serving, from one process: it cannot tell another live process's streams apart.
        """
        now = _now()
        with self._write() as conn:
            rows = conn.execute(
                select(
                    MESSAGES.c.id,
                    MESSAGES.c.session_id,
                    MESSAGES.c.seq,
                    MESSAGES.c.role,
                    MESSAGES.c.content,
                    MESSAGES.c.reasoning,
                )
                .where(MESSAGES.c.status == "streaming")
                .order_by(MESSAGES.c.id)
            ).all()
            for row in rows:
                conn.execute(
                    update(MESSAGES)
                    .where(MESSAGES.c.id == row.id)
                    .values(status="interrupted", error=INTERRUPTED_ERROR, updated_at=now)
                )
                _link(
                    conn,
                    row.session_id,
                    row.id,
                    seq=row.seq,
                    role=row.role,
                    content=row.content,
                    reasoning=row.reasoning,
                    status="interrupted",
                    attachments=_attachment_pairs(conn, row.id),
                )
        return len(rows)

    def add_rail_event(
        self, message_id: int, *, stage: str, rail: str, decision: str, reason: str, latency_ms: float
    ) -> None:
        with self._write() as conn:
            conn.execute(
                insert(RAIL_EVENTS).values(
                    message_id=message_id,
                    stage=stage,
                    rail=rail,
                    decision=decision,
                    reason=reason,
                    latency_ms=latency_ms,
                    created_at=_now(),
                )
            )

    def record_context(
        self, answer_id: int, message_ids: Sequence[int], *, tokens: int, dropped: int
    ) -> None:
        """Remember which messages (in order) the model saw for an answer."""
        with self._write() as conn:
            updated = conn.execute(
                update(MESSAGES)
                .where(MESSAGES.c.id == answer_id)
                .values(context_tokens=tokens, context_dropped=dropped)
            )
            if updated.rowcount != 1:
                raise StoreError(f"no message {answer_id}")
            conn.execute(delete(CONTEXT).where(CONTEXT.c.answer_id == answer_id))
            if message_ids:
                conn.execute(
                    insert(CONTEXT),
                    [
                        {"answer_id": answer_id, "position": i, "message_id": m}
                        for i, m in enumerate(message_ids)
                    ],
                )

    def add_annotation(self, message_id: int, *, author: str, text: str) -> int:
        with self._write() as conn:
            return conn.execute(
                insert(ANNOTATIONS)
                .values(message_id=message_id, author=author, text=text, created_at=_now())
                .returning(ANNOTATIONS.c.id)
            ).scalar_one()

    def messages(self, session_id: str) -> list[MessageInfo]:
        """The transcript in seq order, with attachments (bytes included), rail events, context, notes."""
        with self._read() as conn:
            return _load_messages(conn, MESSAGES.c.session_id == session_id)

    def message(self, message_id: int) -> MessageInfo | None:
        with self._read() as conn:
            found = _load_messages(conn, MESSAGES.c.id == message_id)
        return found[0] if found else None

    # retention -----------------------------------------------------------------------------------------

    def purge_older_than(self, days: int) -> int:
        """Delete sessions (deleted or not) without activity for `days` days; returns how many."""
        if days < 0:
            raise StoreError("days must be >= 0")
        cutoff = _now() - timedelta(days=days)
        with self._write() as conn:
            session_ids = list(
                conn.execute(
                    select(SESSIONS.c.id).where(SESSIONS.c.updated_at < cutoff).with_for_update()
                ).scalars()
            )
            for start in range(0, len(session_ids), 500):
                _delete_sessions(conn, session_ids[start : start + 500])
            if session_ids:
                conn.execute(
                    delete(BLOBS).where(
                        ~exists().where(ATTACHMENTS.c.data_sha256 == BLOBS.c.sha256),
                        ~exists().where(ATTACHMENTS.c.thumbnail_sha256 == BLOBS.c.sha256),
                    )
                )
        return len(session_ids)

    # export / import -----------------------------------------------------------------------------------

    def export_jsonl(self, session_id: str) -> str:
        """One JSON object per line: the session, then its messages in seq order (bytes as base64)."""
        session = self.get_session(session_id)
        if session is None:
            raise StoreError(f"no session {session_id!r}")
        messages = self.messages(session_id)
        seq_of = {m.id: m.seq for m in messages}
        lines = [_session_json(session)] + [_message_json(m, seq_of) for m in messages]
        return "".join(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n" for line in lines)

    def import_jsonl(self, text: str) -> str:
        """Load an export. Keeps the session id unless taken. Raises StoreError if a hash does not match."""
        records = [json.loads(line) for line in text.splitlines() if line.strip()]
        if not records or records[0].get("type") != "session" or records[0].get("format") != EXPORT_FORMAT:
            raise StoreError(f"not a {EXPORT_FORMAT} export")
        head, messages = records[0], records[1:]
        with self._write() as conn:
            session_id = head["id"]
            taken = conn.execute(select(SESSIONS.c.id).where(SESSIONS.c.id == session_id)).first()
            if taken is not None:
                session_id = new_session_id()
            conn.execute(
                insert(SESSIONS).values(
                    id=session_id,
                    owner=head["owner"],
                    client=head["client"],
                    title=head["title"],
                    model=head["model"],
                    created_at=_parse_time(head["created_at"]),
                    updated_at=_parse_time(head["updated_at"]),
                    deleted_at=_parse_time(head["deleted_at"]) if head["deleted_at"] else None,
                    message_count=max((m["seq"] for m in messages), default=0),
                    chain_head=GENESIS,
                    chain_length=0,
                )
            )
            id_of_seq: dict[int, int] = {}
            pairs_of_seq: dict[int, list[tuple[str, str]]] = {}
            for record in messages:
                message_id = _import_message(conn, session_id, record)
                id_of_seq[record["seq"]] = message_id
                pairs_of_seq[record["seq"]] = [
                    self._insert_attachment(conn, message_id, i, _attachment_in(a))
                    for i, a in enumerate(record["attachments"])
                ]
            for record in messages:
                seqs = (record["context"] or {}).get("seqs") or []
                if seqs:
                    conn.execute(
                        insert(CONTEXT),
                        [
                            {"answer_id": id_of_seq[record["seq"]], "position": i, "message_id": id_of_seq[s]}
                            for i, s in enumerate(seqs)
                        ],
                    )
            linked = sorted((m for m in messages if m["chain_pos"] is not None), key=lambda m: m["chain_pos"])
            for record in linked:
                digest = _link(
                    conn,
                    session_id,
                    id_of_seq[record["seq"]],
                    seq=record["seq"],
                    role=record["role"],
                    content=record["content"],
                    reasoning=record["reasoning"],
                    status=record["status"],
                    attachments=pairs_of_seq[record["seq"]],
                )
                if record["hash"] is not None and record["hash"] != digest:
                    raise StoreError(f"message seq {record['seq']}: hash does not match its content")
        return session_id

    # helpers -------------------------------------------------------------------------------------------

    def _insert_attachment(
        self, conn: Connection, message_id: int, position: int, attachment: AttachmentIn
    ) -> tuple[str, str]:
        data_sha = _put_blob(conn, attachment.data)
        thumb_sha = None if attachment.thumbnail is None else _put_blob(conn, attachment.thumbnail)
        conn.execute(
            insert(ATTACHMENTS).values(
                message_id=message_id,
                position=position,
                sha256=attachment.sha256,
                mime=attachment.mime,
                size=attachment.size,
                width=attachment.width,
                height=attachment.height,
                data_sha256=data_sha,
                thumbnail_sha256=thumb_sha,
                error=attachment.error,
            )
        )
        return (attachment.sha256, data_sha)


def _put_blob(conn: Connection, data: bytes) -> str:
    digest = sha256_hex(data)
    values = {"sha256": digest, "size": len(data), "data": data}
    dialect = conn.dialect.name
    if dialect == "sqlite":
        conn.execute(sqlite_insert(BLOBS).values(values).on_conflict_do_nothing(index_elements=["sha256"]))
    elif dialect == "postgresql":
        conn.execute(pg_insert(BLOBS).values(values).on_conflict_do_nothing(index_elements=["sha256"]))
    elif conn.execute(select(BLOBS.c.sha256).where(BLOBS.c.sha256 == digest)).first() is None:
        conn.execute(insert(BLOBS).values(values))
    return digest


def _attachment_pairs(conn: Connection, message_id: int) -> list[tuple[str, str]]:
    rows = conn.execute(
        select(ATTACHMENTS.c.sha256, ATTACHMENTS.c.data_sha256)
        .where(ATTACHMENTS.c.message_id == message_id)
        .order_by(ATTACHMENTS.c.position)
    )
    return [(row.sha256, row.data_sha256) for row in rows]


def _link(
    conn: Connection,
    session_id: str,
    message_id: int,
    *,
    seq: int,
    role: str,
    content: str,
    reasoning: str,
    status: str,
    attachments: Sequence[tuple[str, str]],
) -> str:
    """Append a message to its session's hash chain; returns the new link."""
    # The UPDATE takes the session row lock first, so the head read back is the one this link extends.
    position, prev_hash = conn.execute(
        update(SESSIONS)
        .where(SESSIONS.c.id == session_id)
        .values(chain_length=SESSIONS.c.chain_length + 1)
        .returning(SESSIONS.c.chain_length, SESSIONS.c.chain_head)
    ).one()
    digest = link_hash(
        prev_hash,
        canonical_json(
            seq=seq, role=role, content=content, reasoning=reasoning, status=status, attachments=attachments
        ),
    )
    conn.execute(update(SESSIONS).where(SESSIONS.c.id == session_id).values(chain_head=digest))
    conn.execute(
        update(MESSAGES)
        .where(MESSAGES.c.id == message_id)
        .values(chain_pos=position, prev_hash=prev_hash, hash=digest)
    )
    return digest


def _delete_sessions(conn: Connection, session_ids: list[str]) -> None:
    message_ids = select(MESSAGES.c.id).where(MESSAGES.c.session_id.in_(session_ids)).scalar_subquery()
    conn.execute(
        delete(CONTEXT).where(
            or_(CONTEXT.c.answer_id.in_(message_ids), CONTEXT.c.message_id.in_(message_ids))
        )
    )
    for table in (ANNOTATIONS, RAIL_EVENTS, ATTACHMENTS):
        conn.execute(delete(table).where(table.c.message_id.in_(message_ids)))
    conn.execute(delete(MESSAGES).where(MESSAGES.c.session_id.in_(session_ids)))
    conn.execute(delete(SESSIONS).where(SESSIONS.c.id.in_(session_ids)))


def _load_messages(conn: Connection, which: ColumnElement[bool]) -> list[MessageInfo]:
    rows = conn.execute(select(MESSAGES).where(which).order_by(MESSAGES.c.session_id, MESSAGES.c.seq)).all()
    if not rows:
        return []
    in_scope = and_(MESSAGES.c.id == ATTACHMENTS.c.message_id, which)
    data, thumb = BLOBS.alias("data"), BLOBS.alias("thumb")
    attachments: dict[int, list[AttachmentInfo]] = defaultdict(list)
    for a in conn.execute(
        select(ATTACHMENTS, data.c.data, thumb.c.data.label("thumbnail"))
        .join(MESSAGES, in_scope)
        .join(data, data.c.sha256 == ATTACHMENTS.c.data_sha256)
        .outerjoin(thumb, thumb.c.sha256 == ATTACHMENTS.c.thumbnail_sha256)
        .order_by(ATTACHMENTS.c.message_id, ATTACHMENTS.c.position)
    ):
        attachments[a.message_id].append(
            AttachmentInfo(
                id=a.id,
                position=a.position,
                sha256=a.sha256,
                data_sha256=a.data_sha256,
                mime=a.mime,
                size=a.size,
                width=a.width,
                height=a.height,
                data=bytes(a.data),
                thumbnail=None if a.thumbnail is None else bytes(a.thumbnail),
                error=a.error,
            )
        )
    events: dict[int, list[RailEventInfo]] = defaultdict(list)
    for e in conn.execute(
        select(RAIL_EVENTS)
        .join(MESSAGES, and_(MESSAGES.c.id == RAIL_EVENTS.c.message_id, which))
        .order_by(RAIL_EVENTS.c.id)
    ):
        events[e.message_id].append(
            RailEventInfo(
                id=e.id,
                message_id=e.message_id,
                stage=e.stage,
                rail=e.rail,
                decision=e.decision,
                reason=e.reason,
                latency_ms=e.latency_ms,
                created_at=e.created_at,
            )
        )
    context: dict[int, list[int]] = defaultdict(list)
    for c in conn.execute(
        select(CONTEXT)
        .join(MESSAGES, and_(MESSAGES.c.id == CONTEXT.c.answer_id, which))
        .order_by(CONTEXT.c.answer_id, CONTEXT.c.position)
    ):
        context[c.answer_id].append(c.message_id)
    notes: dict[int, list[AnnotationInfo]] = defaultdict(list)
    for n in conn.execute(
        select(ANNOTATIONS)
        .join(MESSAGES, and_(MESSAGES.c.id == ANNOTATIONS.c.message_id, which))
        .order_by(ANNOTATIONS.c.id)
    ):
        notes[n.message_id].append(
            AnnotationInfo(
                id=n.id, message_id=n.message_id, author=n.author, text=n.text, created_at=n.created_at
            )
        )
    return [_message_info(r, attachments[r.id], events[r.id], context[r.id], notes[r.id]) for r in rows]


def _message_info(
    row: Row[Any],
    attachments: list[AttachmentInfo],
    events: list[RailEventInfo],
    context: list[int],
    notes: list[AnnotationInfo],
) -> MessageInfo:
    return MessageInfo(
        id=row.id,
        session_id=row.session_id,
        seq=row.seq,
        role=row.role,
        content=row.content,
        reasoning=row.reasoning,
        status=row.status,
        mode=row.mode,
        params=row.params,
        model=row.model,
        prompt_tokens=row.prompt_tokens,
        completion_tokens=row.completion_tokens,
        ttft_ms=row.ttft_ms,
        duration_ms=row.duration_ms,
        finish_reason=row.finish_reason,
        error=row.error,
        created_at=row.created_at,
        updated_at=row.updated_at,
        hash=row.hash,
        prev_hash=row.prev_hash,
        chain_pos=row.chain_pos,
        shown_content=row.shown_content,
        context_tokens=row.context_tokens,
        context_dropped=row.context_dropped,
        context_message_ids=context,
        attachments=attachments,
        rail_events=events,
        annotations=notes,
    )


def _session_info(row: Row[Any]) -> SessionInfo:
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


# JSONL -----------------------------------------------------------------------------------------------------


def _time(value: datetime) -> str:
    return value.isoformat()


def _parse_time(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _session_json(s: SessionInfo) -> dict[str, Any]:
    return {
        "type": "session",
        "format": EXPORT_FORMAT,
        "id": s.id,
        "owner": s.owner,
        "client": s.client,
        "title": s.title,
        "model": s.model,
        "created_at": _time(s.created_at),
        "updated_at": _time(s.updated_at),
        "deleted_at": _time(s.deleted_at) if s.deleted_at else None,
        "chain_head": s.chain_head,
        "chain_length": s.chain_length,
    }


def _message_json(m: MessageInfo, seq_of: dict[int, int]) -> dict[str, Any]:
    context = None
    if m.context_tokens is not None or m.context_message_ids:
        context = {
            "seqs": [seq_of[i] for i in m.context_message_ids],
            "tokens": m.context_tokens,
            "dropped": m.context_dropped,
        }
    return {
        "type": "message",
        "seq": m.seq,
        "role": m.role,
        "content": m.content,
        "reasoning": m.reasoning,
        "shown_content": m.shown_content,
        "status": m.status,
        "mode": m.mode,
        "params": m.params,
        "model": m.model,
        "prompt_tokens": m.prompt_tokens,
        "completion_tokens": m.completion_tokens,
        "ttft_ms": m.ttft_ms,
        "duration_ms": m.duration_ms,
        "finish_reason": m.finish_reason,
        "error": m.error,
        "created_at": _time(m.created_at),
        "updated_at": _time(m.updated_at),
        "chain_pos": m.chain_pos,
        "prev_hash": m.prev_hash,
        "hash": m.hash,
        "context": context,
        "attachments": [
            {
                "sha256": a.sha256,
                "mime": a.mime,
                "size": a.size,
                "width": a.width,
                "height": a.height,
                "data": _b64(a.data),
                "thumbnail": _b64(a.thumbnail),
                "error": a.error,
            }
            for a in m.attachments
        ],
        "rail_events": [
            {
                "stage": e.stage,
                "rail": e.rail,
                "decision": e.decision,
                "reason": e.reason,
                "latency_ms": e.latency_ms,
                "created_at": _time(e.created_at),
            }
            for e in m.rail_events
        ],
        "annotations": [
            {"author": n.author, "text": n.text, "created_at": _time(n.created_at)} for n in m.annotations
        ],
    }


def _attachment_in(record: dict[str, Any]) -> AttachmentIn:
    thumbnail = record["thumbnail"]
    return AttachmentIn(
        sha256=record["sha256"],
        mime=record["mime"],
        size=record["size"],
        width=record["width"],
        height=record["height"],
        data=base64.b64decode(record["data"]),
        thumbnail=None if thumbnail is None else base64.b64decode(thumbnail),
        error=record["error"],
    )


def _import_message(conn: Connection, session_id: str, r: dict[str, Any]) -> int:
    if r["role"] not in ROLES or r["status"] not in STATUSES:
        raise StoreError(f"message seq {r['seq']}: bad role or status")
    context = r["context"] or {}
    message_id = conn.execute(
        insert(MESSAGES)
        .values(
            session_id=session_id,
            seq=r["seq"],
            role=r["role"],
            content=r["content"],
            reasoning=r["reasoning"],
            shown_content=r["shown_content"],
            status=r["status"],
            mode=r["mode"],
            params=r["params"],
            model=r["model"],
            prompt_tokens=r["prompt_tokens"],
            completion_tokens=r["completion_tokens"],
            ttft_ms=r["ttft_ms"],
            duration_ms=r["duration_ms"],
            finish_reason=r["finish_reason"],
            error=r["error"],
            context_tokens=context.get("tokens"),
            context_dropped=context.get("dropped"),
            created_at=_parse_time(r["created_at"]),
            updated_at=_parse_time(r["updated_at"]),
        )
        .returning(MESSAGES.c.id)
    ).scalar_one()
    for e in r["rail_events"]:
        conn.execute(
            insert(RAIL_EVENTS).values(
                message_id=message_id,
                stage=e["stage"],
                rail=e["rail"],
                decision=e["decision"],
                reason=e["reason"],
                latency_ms=e["latency_ms"],
                created_at=_parse_time(e["created_at"]),
            )
        )
    for n in r["annotations"]:
        conn.execute(
            insert(ANNOTATIONS).values(
                message_id=message_id,
                author=n["author"],
                text=n["text"],
                created_at=_parse_time(n["created_at"]),
            )
        )
    return message_id
