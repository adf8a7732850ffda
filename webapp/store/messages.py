"""Message writes: a message with its attachments, streaming checkpoints, the final status and its hash-chain
link, rail events, context records and reviewer annotations.

Functions take an open write connection, so `Store` decides the transaction and several writes can share one.
Seq numbers and chain links are allocated by an ``UPDATE ... RETURNING`` on the session row: its row lock
orders writers of one session on every database.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, get_args

from sqlalchemy import Connection, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from webapp.store import statements
from webapp.store.chain import FINAL_STATUSES, STATUSES, canonical_json, link_hash, sha256_hex
from webapp.store.models import ANNOTATIONS, ATTACHMENTS, BLOBS, MESSAGES, SESSIONS
from webapp.store.records import AttachmentIn, FinalStatus, MessageRole, RailEventIn, StoreError
from webapp.store.sessions import now

MESSAGE_ROLES = frozenset(get_args(MessageRole))
INTERRUPTED_ERROR = "the server stopped while this answer was being generated"


def insert_message(
    conn: Connection,
    session_id: str,
    *,
    role: MessageRole,
    content: str,
    status: str,
    reasoning: str,
    mode: str | None,
    params: dict[str, Any] | None,
    model: str | None,
    attachments: Sequence[AttachmentIn],
    error: str | None,
    tool_calls: list[dict[str, Any]] | None = None,
    tool_call_id: str | None = None,
) -> int:
    if role not in MESSAGE_ROLES:
        raise StoreError(f"unknown role {role!r}")
    if status not in STATUSES:
        raise StoreError(f"unknown status {status!r}")
    created = now()
    seq = conn.execute(statements.NEXT_SEQ, {"sid": session_id, "at": created}).scalar_one_or_none()
    if seq is None:
        raise StoreError(f"no session {session_id!r}")
    row = {
        "session_id": session_id,
        "seq": seq,
        "role": role,
        "content": content,
        "reasoning": reasoning,
        "status": status,
        "mode": mode,
        "params": params,
        "model": model,
        "error": error,
        "tool_calls": tool_calls or None,
        "tool_call_id": tool_call_id,
        "created_at": created,
        "updated_at": created,
    }
    # Left out, not None: a JSON column given None as a parameter would hold JSON null, not SQL NULL.
    values = {k: v for k, v in row.items() if v is not None}
    message_id = conn.execute(statements.INSERT_MESSAGE, values).scalar_one()
    pairs = [insert_attachment(conn, message_id, i, a) for i, a in enumerate(attachments)]
    if status in FINAL_STATUSES:
        link(
            conn,
            session_id,
            message_id,
            seq=seq,
            role=role,
            content=content,
            reasoning=reasoning,
            status=status,
            attachments=pairs,
            tool_calls=tool_calls or None,
            tool_call_id=tool_call_id,
        )
    return message_id


def finish_user_message(
    conn: Connection,
    message_id: int,
    *,
    attachments: Sequence[AttachmentIn],
    status: FinalStatus,
    error: str | None,
) -> None:
    """Attach a pending user message's images and give it its final status and chain link."""
    if status not in FINAL_STATUSES:
        raise StoreError(f"not a final status: {status!r}")
    finished = now()
    row = conn.execute(
        update(MESSAGES)
        .where(MESSAGES.c.id == message_id, MESSAGES.c.status == "streaming", MESSAGES.c.role == "user")
        .values(status=status, error=error, updated_at=finished)
        .returning(MESSAGES.c.session_id, MESSAGES.c.seq, MESSAGES.c.content, MESSAGES.c.reasoning)
    ).one_or_none()
    if row is None:
        raise StoreError(f"message {message_id} is not a pending user message")
    conn.execute(update(SESSIONS).where(SESSIONS.c.id == row.session_id).values(updated_at=finished))
    pairs = [insert_attachment(conn, message_id, i, a) for i, a in enumerate(attachments)]
    link(
        conn,
        row.session_id,
        message_id,
        seq=row.seq,
        role="user",
        content=row.content,
        reasoning=row.reasoning,
        status=status,
        attachments=pairs,
    )


def checkpoint(
    conn: Connection, message_id: int, *, content: str, reasoning: str, shown_content: str | None = None
) -> None:
    result = conn.execute(
        update(MESSAGES)
        .where(MESSAGES.c.id == message_id, MESSAGES.c.status == "streaming")
        .values(content=content, reasoning=reasoning, shown_content=shown_content, updated_at=now())
    )
    if result.rowcount != 1:
        raise StoreError(f"message {message_id} is not streaming")


def finish(
    conn: Connection,
    message_id: int,
    *,
    status: FinalStatus,
    content: str,
    reasoning: str,
    finish_reason: str | None,
    prompt_tokens: int | None,
    completion_tokens: int | None,
    ttft_ms: float | None,
    duration_ms: float | None,
    error: str | None,
    shown_content: str | None,
    tool_calls: list[dict[str, Any]] | None = None,
) -> None:
    if status not in FINAL_STATUSES:
        raise StoreError(f"not a final status: {status!r}")
    finished = now()
    values = {
        "mid": message_id,
        "new_status": status,
        "new_content": content,
        "new_reasoning": reasoning,
        "new_finish_reason": finish_reason,
        "new_prompt_tokens": prompt_tokens,
        "new_completion_tokens": completion_tokens,
        "new_ttft_ms": ttft_ms,
        "new_duration_ms": duration_ms,
        "new_error": error,
        "new_shown_content": shown_content,
        "new_updated_at": finished,
    }
    if tool_calls:  # otherwise the column keeps the SQL NULL it was inserted with
        row = conn.execute(statements.FINISH_WITH_TOOL_CALLS, {**values, "new_tool_calls": tool_calls})
    else:
        row = conn.execute(statements.FINISH, values)
    found = row.one_or_none()
    if found is None:
        raise StoreError(f"message {message_id} is not streaming (unknown or already final)")
    link(
        conn,
        found.session_id,
        message_id,
        seq=found.seq,
        role=found.role,
        content=content,
        reasoning=reasoning,
        status=status,
        attachments=attachment_pairs(conn, message_id),
        tool_calls=tool_calls or None,
        touched_at=finished,
    )


def interrupt_streaming(conn: Connection) -> int:
    """Make every message still "streaming" "interrupted" (and link it); returns how many."""
    interrupted = now()
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
            .values(status="interrupted", error=INTERRUPTED_ERROR, updated_at=interrupted)
        )
        link(
            conn,
            row.session_id,
            row.id,
            seq=row.seq,
            role=row.role,
            content=row.content,
            reasoning=row.reasoning,
            status="interrupted",
            attachments=attachment_pairs(conn, row.id),
        )
    return len(rows)


def add_rail_event(
    conn: Connection, message_id: int, *, stage: str, rail: str, decision: str, reason: str, latency_ms: float
) -> None:
    add_rail_events(conn, message_id, [RailEventIn(stage, rail, decision, reason, latency_ms)])


def add_rail_events(conn: Connection, message_id: int, events: Sequence[RailEventIn]) -> None:
    """A message's rail verdicts in one statement."""
    if not events:
        return
    created = now()
    session_id = conn.execute(statements.SESSION_OF_MESSAGE, {"mid": message_id}).scalar_one()
    conn.execute(
        statements.INSERT_RAIL_EVENTS,
        [
            {
                "session_id": session_id,
                "message_id": message_id,
                "stage": e.stage,
                "rail": e.rail,
                "decision": e.decision,
                "reason": e.reason,
                "latency_ms": e.latency_ms,
                "created_at": created,
            }
            for e in events
        ],
    )


def checkpoint_many(conn: Connection, texts: Sequence[tuple[int, str, str, str]]) -> None:
    """Save the text streamed so far of several answers: ``(message_id, content, reasoning, shown)`` each,
    shown being what the chatter saw (a reopened chat shows only that if the process dies).

    An answer that became final meanwhile is skipped, not an error: its final text is already stored.
    """
    if not texts:
        return
    at = now()
    rows = [
        {"message_id": i, "new_content": c, "new_reasoning": r, "new_shown": s, "at": at}
        for i, c, r, s in texts
    ]
    conn.execute(statements.CHECKPOINT, rows)


def record_context(
    conn: Connection, answer_id: int, message_ids: Sequence[int], *, tokens: int, dropped: int
) -> None:
    updated = conn.execute(statements.SET_CONTEXT, {"mid": answer_id, "tokens": tokens, "dropped": dropped})
    if updated.rowcount != 1:
        raise StoreError(f"no message {answer_id}")
    conn.execute(statements.CLEAR_CONTEXT, {"mid": answer_id})
    if message_ids:
        conn.execute(
            statements.INSERT_CONTEXT,
            [{"answer_id": answer_id, "position": i, "message_id": m} for i, m in enumerate(message_ids)],
        )


def add_annotation(conn: Connection, message_id: int, *, author: str, text: str, label: str = "") -> int:
    session_of = select(MESSAGES.c.session_id).where(MESSAGES.c.id == message_id).scalar_subquery()
    values = {
        "session_id": session_of,
        "message_id": message_id,
        "author": author,
        "label": label,
        "text": text,
    }
    query = insert(ANNOTATIONS).values(created_at=now(), **values).returning(ANNOTATIONS.c.id)
    return conn.execute(query).scalar_one()


def insert_attachment(
    conn: Connection, message_id: int, position: int, attachment: AttachmentIn
) -> tuple[str, str]:
    """Store one attachment (its bytes deduplicated as a blob); returns what its chain link covers."""
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


def attachment_pairs(conn: Connection, message_id: int) -> list[tuple[str, str]]:
    rows = conn.execute(statements.ATTACHMENT_PAIRS, {"mid": message_id})
    return [(row.sha256, row.data_sha256) for row in rows]


def link(
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
    tool_calls: list[dict[str, Any]] | None = None,
    tool_call_id: str | None = None,
    touched_at: datetime | None = None,
) -> str:
    """Append a message to its session's hash chain; returns the new link. `touched_at`: also the session's
    last activity, in the same statement."""
    # The UPDATE takes the session row lock first, so the head read back is the one this link extends.
    next_link = statements.NEXT_LINK if touched_at is None else statements.TOUCH_AND_NEXT_LINK
    position, prev_hash = conn.execute(next_link, {"sid": session_id, "at": touched_at}).one()
    digest = link_hash(
        prev_hash,
        canonical_json(
            seq=seq,
            role=role,
            content=content,
            reasoning=reasoning,
            status=status,
            attachments=attachments,
            tool_calls=tool_calls,
            tool_call_id=tool_call_id,
        ),
    )
    conn.execute(statements.SET_CHAIN_HEAD, {"sid": session_id, "head": digest})
    conn.execute(
        statements.SET_MESSAGE_LINK, {"mid": message_id, "pos": position, "prev": prev_hash, "digest": digest}
    )
    return digest
