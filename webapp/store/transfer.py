"""Export and import of one session as JSON lines (format ``railchat-session/1``).

An export carries everything a reviewer needs elsewhere: messages with reasoning, attachments (bytes as
base64), rail events, context records (as seq numbers, since ids change) and annotations. An import rebuilds
the hash chain from the content and refuses the file if a recorded hash does not match.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, insert, select

from webapp.store.chain import GENESIS, STATUSES
from webapp.store.jsonlines import dumps_line, split_lines
from webapp.store.messages import MESSAGE_ROLES, insert_attachment, link
from webapp.store.models import ANNOTATIONS, CONTEXT, MESSAGES, RAIL_EVENTS, SESSIONS
from webapp.store.records import AttachmentIn, MessageInfo, SessionInfo, StoreError
from webapp.store.sessions import new_session_id

EXPORT_FORMAT = "railchat-session/1"


def to_jsonl(session: SessionInfo, messages: Sequence[MessageInfo]) -> str:
    """One JSON object per line: the session, then its messages in seq order (bytes as base64)."""
    seq_of = {m.id: m.seq for m in messages}
    lines = [_session_json(session)] + [_message_json(m, seq_of) for m in messages]
    return "".join(dumps_line(line, sort_keys=True) for line in lines)


def parse_jsonl(text: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An export's session record and its message records; StoreError if it is not one."""
    records = [json.loads(line) for line in split_lines(text)]
    if not records or records[0].get("type") != "session" or records[0].get("format") != EXPORT_FORMAT:
        raise StoreError(f"not a {EXPORT_FORMAT} export")
    return records[0], records[1:]


def import_session(conn: Connection, head: dict[str, Any], messages: list[dict[str, Any]]) -> str:
    """Insert a parsed export. Keeps the session id unless taken. StoreError if a hash does not match."""
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
            insert_attachment(conn, message_id, i, _attachment_in(a))
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
    _relink(conn, session_id, messages, id_of_seq, pairs_of_seq)
    return session_id


def _relink(
    conn: Connection,
    session_id: str,
    messages: list[dict[str, Any]],
    id_of_seq: dict[int, int],
    pairs_of_seq: dict[int, list[tuple[str, str]]],
) -> None:
    """Rebuild the hash chain in its recorded order and compare every link with the one the export carries."""
    linked = sorted((m for m in messages if m["chain_pos"] is not None), key=lambda m: m["chain_pos"])
    for record in linked:
        digest = link(
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
        "tool_calls": m.tool_calls,
        "tool_call_id": m.tool_call_id,
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
            {"author": n.author, "label": n.label, "text": n.text, "created_at": _time(n.created_at)}
            for n in m.annotations
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
    if r["role"] not in MESSAGE_ROLES or r["status"] not in STATUSES:
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
            tool_calls=r.get("tool_calls"),  # absent in exports made before tool turns
            tool_call_id=r.get("tool_call_id"),
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
                session_id=session_id,
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
                session_id=session_id,
                message_id=message_id,
                author=n["author"],
                label=n.get("label", ""),
                text=n["text"],
                created_at=_parse_time(n["created_at"]),
            )
        )
    return message_id
