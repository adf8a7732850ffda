"""Reading transcripts back: messages with their attachments, rail events, context records and annotations.

One query per table for any set of messages (``which`` is a WHERE clause over messages), so a transcript
costs five queries however long it is. Reviewer queries build on `load_messages` with their own clause.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Connection, Row, Select, and_, bindparam, select

from webapp.store.models import ANNOTATIONS, ATTACHMENTS, BLOBS, CONTEXT, MESSAGES, RAIL_EVENTS
from webapp.store.records import AnnotationInfo, AttachmentInfo, MessageInfo, RailEventInfo


@dataclass(frozen=True)
class TranscriptQueries:
    """The five queries of a transcript for one WHERE clause over messages. Built once for the clauses
    every turn uses (a statement keeps its cache key: building one costs more than running it)."""

    messages: Select[Any]
    attachments: Select[Any]
    events: Select[Any]
    context: Select[Any]
    notes: Select[Any]

    @classmethod
    def where(cls, which: ColumnElement[bool]) -> TranscriptQueries:
        data, thumb = BLOBS.alias("data"), BLOBS.alias("thumb")
        return cls(
            messages=select(MESSAGES).where(which).order_by(MESSAGES.c.session_id, MESSAGES.c.seq),
            attachments=select(ATTACHMENTS, data.c.data, thumb.c.data.label("thumbnail"))
            .join(MESSAGES, and_(MESSAGES.c.id == ATTACHMENTS.c.message_id, which))
            .join(data, data.c.sha256 == ATTACHMENTS.c.data_sha256)
            .outerjoin(thumb, thumb.c.sha256 == ATTACHMENTS.c.thumbnail_sha256)
            .order_by(ATTACHMENTS.c.message_id, ATTACHMENTS.c.position),
            events=select(RAIL_EVENTS)
            .join(MESSAGES, and_(MESSAGES.c.id == RAIL_EVENTS.c.message_id, which))
            .order_by(RAIL_EVENTS.c.id),
            context=select(CONTEXT)
            .join(MESSAGES, and_(MESSAGES.c.id == CONTEXT.c.answer_id, which))
            .order_by(CONTEXT.c.answer_id, CONTEXT.c.position),
            notes=select(ANNOTATIONS)
            .join(MESSAGES, and_(MESSAGES.c.id == ANNOTATIONS.c.message_id, which))
            .order_by(ANNOTATIONS.c.id),
        )


BY_SESSION = TranscriptQueries.where(MESSAGES.c.session_id == bindparam("which"))
BY_ID = TranscriptQueries.where(MESSAGES.c.id == bindparam("which"))


def load_messages(conn: Connection, which: ColumnElement[bool]) -> list[MessageInfo]:
    """The messages ``which`` selects, with everything attached (reviewer queries: any clause)."""
    return load_with(conn, TranscriptQueries.where(which), {})


def load_with(conn: Connection, queries: TranscriptQueries, params: dict[str, Any]) -> list[MessageInfo]:
    rows = conn.execute(queries.messages, params).all()
    if not rows:
        return []
    attachments: dict[int, list[AttachmentInfo]] = defaultdict(list)
    for a in conn.execute(queries.attachments, params):
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
    for e in conn.execute(queries.events, params):
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
    for c in conn.execute(queries.context, params):
        context[c.answer_id].append(c.message_id)
    notes: dict[int, list[AnnotationInfo]] = defaultdict(list)
    for n in conn.execute(queries.notes, params):
        notes[n.message_id].append(
            AnnotationInfo(
                id=n.id,
                message_id=n.message_id,
                author=n.author,
                text=n.text,
                created_at=n.created_at,
                label=n.label,
                session_id=n.session_id,
            )
        )
    return [message_info(r, attachments[r.id], events[r.id], context[r.id], notes[r.id]) for r in rows]


def message_info(
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
        tool_calls=row.tool_calls,
        tool_call_id=row.tool_call_id,
        context_tokens=row.context_tokens,
        context_dropped=row.context_dropped,
        context_message_ids=context,
        attachments=attachments,
        rail_events=events,
        annotations=notes,
    )
