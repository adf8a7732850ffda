"""The reviewers' export: every message of the sessions a filter selects, one flat row each.

It walks the same keyset as the session list, a batch of sessions at a time, and never reads blob bytes
(attachments are named by hash), so memory stays flat however many sessions match; the web layer writes the
rows out as JSONL or CSV as they come.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import Connection, and_, select

from webapp.store.models import ATTACHMENTS, CONTEXT, MESSAGES, RAIL_EVENTS
from webapp.store.review import SessionFilter, encode_cursor, page_query
from webapp.store.store import Store

EXPORT_BATCH = 200  # sessions per read

EXPORT_FIELDS = (
    "session_id",
    "owner",
    "client",
    "title",
    "session_model",
    "session_created_at",
    "deleted",
    "message_id",
    "seq",
    "role",
    "status",
    "mode",
    "model",
    "content",
    "reasoning",
    "shown_content",
    "error",
    "created_at",
    "prompt_tokens",
    "completion_tokens",
    "ttft_ms",
    "duration_ms",
    "finish_reason",
    "hash",
    "rail_events",
    "context_message_ids",
    "context_tokens",
    "context_dropped",
    "attachments",
)


def export_rows(store: Store, f: SessionFilter) -> Iterator[dict[str, Any]]:
    """Every message of every matching session, session by session in list order, in bounded batches."""
    cursor: str | None = None
    while True:
        with store.transaction() as conn:
            sessions = conn.execute(page_query(conn, f, EXPORT_BATCH, cursor)).all()
            if not sessions:
                return
            batch = _export_batch(conn, sessions)
        yield from batch
        if len(sessions) < EXPORT_BATCH:
            return
        cursor = encode_cursor(sessions[-1].updated_at, sessions[-1].id)


def _export_batch(conn: Connection, sessions: Sequence[Any]) -> list[dict[str, Any]]:
    ids = [s.id for s in sessions]
    in_batch = MESSAGES.c.session_id.in_(ids)
    events: dict[int, list[dict[str, str]]] = defaultdict(list)
    for e in conn.execute(
        select(RAIL_EVENTS)
        .join(MESSAGES, and_(MESSAGES.c.id == RAIL_EVENTS.c.message_id, in_batch))
        .order_by(RAIL_EVENTS.c.id)
    ):
        events[e.message_id].append(
            {"stage": e.stage, "rail": e.rail, "decision": e.decision, "reason": e.reason}
        )
    context: dict[int, list[int]] = defaultdict(list)
    for c in conn.execute(
        select(CONTEXT)
        .join(MESSAGES, and_(MESSAGES.c.id == CONTEXT.c.answer_id, in_batch))
        .order_by(CONTEXT.c.answer_id, CONTEXT.c.position)
    ):
        context[c.answer_id].append(c.message_id)
    images: dict[int, list[str]] = defaultdict(list)
    for a in conn.execute(
        select(ATTACHMENTS.c.message_id, ATTACHMENTS.c.sha256)
        .join(MESSAGES, and_(MESSAGES.c.id == ATTACHMENTS.c.message_id, in_batch))
        .order_by(ATTACHMENTS.c.message_id, ATTACHMENTS.c.position)
    ):
        images[a.message_id].append(a.sha256)
    by_session = {s.id: s for s in sessions}
    rows = []
    for m in conn.execute(select(MESSAGES).where(in_batch)):
        rows.append(_export_row(by_session[m.session_id], m, events[m.id], context[m.id], images[m.id]))
    order = {s.id: i for i, s in enumerate(sessions)}
    rows.sort(key=lambda r: (order[r["session_id"]], r["seq"]))
    return rows


def _export_row(
    s: Any, m: Any, events: list[dict[str, str]], context: list[int], images: list[str]
) -> dict[str, Any]:
    return {
        "session_id": s.id,
        "owner": s.owner,
        "client": s.client,
        "title": s.title,
        "session_model": s.model,
        "session_created_at": s.created_at.isoformat(),
        "deleted": s.deleted_at is not None,
        "message_id": m.id,
        "seq": m.seq,
        "role": m.role,
        "status": m.status,
        "mode": m.mode,
        "model": m.model,
        "content": m.content,
        "reasoning": m.reasoning,
        "shown_content": m.shown_content,
        "error": m.error,
        "created_at": m.created_at.isoformat(),
        "prompt_tokens": m.prompt_tokens,
        "completion_tokens": m.completion_tokens,
        "ttft_ms": m.ttft_ms,
        "duration_ms": m.duration_ms,
        "finish_reason": m.finish_reason,
        "hash": m.hash,
        "rail_events": events,
        "context_message_ids": context,
        "context_tokens": m.context_tokens,
        "context_dropped": m.context_dropped,
        "attachments": images,
    }
