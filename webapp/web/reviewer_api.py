"""The Reviewer API under `/api/`: a thin JSON adapter over ``webapp.store.review``.

Every handler asks `ReviewAccess` first (reviewer or admin only; 401 without credentials, 403 for a
chatter) and logs the read. Blocking store reads run in a worker thread. Exports stream: one JSON line or
CSV row per message, written as the store yields them, so a large export neither buffers in memory nor
times out before its first byte.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from typing import Any, TypeVar

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, ValidationError

from webapp.media.images import THUMBNAIL_MIME, sniff_mime
from webapp.store import AnnotationInfo, MessageInfo, SessionInfo, Store, StoreError, review, review_export
from webapp.store.audit import verify_loaded
from webapp.store.jsonlines import dumps_line
from webapp.web.auth import AccessDenied
from webapp.web.review_access import ReviewAccess, log_read

SHA256 = re.compile(r"^[0-9a-f]{64}$")
SERVED_IMAGES = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"})
T = TypeVar("T")


class BadRequest(Exception):
    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.message, self.param = message, param


class AnnotationIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message_id: int | None = None
    label: str
    note: str = ""


# ---- request -> filter ---------------------------------------------------------------------------------------


def parse_time(value: str | None, name: str) -> datetime | None:
    if value is None or value == "":
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise BadRequest(f"{name} must be an ISO 8601 date or time", name) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def filter_from(params: dict[str, str]) -> review.SessionFilter:
    def text(name: str) -> str | None:
        value = params.get(name)
        return value if value else None

    return review.SessionFilter(
        owner=text("owner"),
        client=text("client"),
        status=text("status"),
        rail=text("rail"),
        model=text("model"),
        since=parse_time(params.get("since"), "since"),
        until=parse_time(params.get("until"), "until"),
        q=text("q"),
    )


def page_limit(value: str | None) -> int:
    if value is None or value == "":
        return 50
    if not value.isdigit() or not 1 <= int(value) <= review.MAX_PAGE:
        raise BadRequest(f"limit must be a whole number from 1 to {review.MAX_PAGE}", "limit")
    return int(value)


# ---- records -> JSON -------------------------------------------------------------------------------------------


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def summary_json(s: review.SessionSummary) -> dict[str, Any]:
    return {
        "id": s.id,
        "owner": s.owner,
        "client": s.client,
        "title": s.title,
        "model": s.model,
        "created_at": _time(s.created_at),
        "updated_at": _time(s.updated_at),
        "message_count": s.message_count,
        "statuses": s.statuses,
        "rails": s.rails,
        "deleted": s.deleted,
    }


def session_json(s: SessionInfo) -> dict[str, Any]:
    return {
        "id": s.id,
        "owner": s.owner,
        "client": s.client,
        "title": s.title,
        "model": s.model,
        "created_at": _time(s.created_at),
        "updated_at": _time(s.updated_at),
        "message_count": s.message_count,
        "deleted": s.deleted_at is not None,
    }


def annotation_json(n: AnnotationInfo) -> dict[str, Any]:
    return {
        "id": n.id,
        "message_id": n.message_id,
        "author": n.author,
        "label": n.label,
        "note": n.text,
        "created_at": _time(n.created_at),
    }


def message_json(m: MessageInfo, notes: list[AnnotationInfo]) -> dict[str, Any]:
    context = None
    if m.context_tokens is not None or m.context_message_ids:
        context = {
            "message_ids": m.context_message_ids,
            "tokens": m.context_tokens,
            "dropped": m.context_dropped,
        }
    return {
        "id": m.id,
        "seq": m.seq,
        "role": m.role,
        "content": m.content,
        "reasoning": m.reasoning,
        "shown_content": m.shown_content,
        "status": m.status,
        "mode": m.mode,
        "model": m.model,
        "error": m.error,
        "created_at": _time(m.created_at),
        "params": m.params,
        "tokens": {"prompt": m.prompt_tokens, "completion": m.completion_tokens},
        "timings": {"ttft_ms": m.ttft_ms, "duration_ms": m.duration_ms},
        "finish_reason": m.finish_reason,
        "attachments": [
            {
                "sha256": a.sha256,
                "mime": a.mime,
                "width": a.width,
                "height": a.height,
                "error": a.error,
                "url": f"/api/attachments/{a.sha256}" if a.data else None,
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
            }
            for e in m.rail_events
        ],
        "context": context,
        "annotations": [annotation_json(n) for n in notes],
    }


def session_detail(store: Store, session_id: str) -> dict[str, Any] | None:
    """The whole session as reviewers see it (also what the Audit tab renders)."""
    info = store.get_session(session_id)
    if info is None:
        return None
    messages = store.messages(session_id)
    notes = review.session_annotations(store, session_id)
    chain = verify_loaded(info, messages)
    return {
        "session": session_json(info),
        "chain": {"ok": chain.ok, "broken_at": chain.first_broken_seq, "reason": chain.reason or None},
        "annotations": [annotation_json(n) for n in notes if n.message_id is None],
        "messages": [message_json(m, [n for n in notes if n.message_id == m.id]) for m in messages],
    }


# ---- export ----------------------------------------------------------------------------------------------------


# What a spreadsheet may read as the start of a formula: the ASCII signs, their full-width forms (which some
# locales' spreadsheets accept as the same), and the whitespace a cell's leading formula may hide behind.
_FORMULA_STARTS = frozenset("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20")


def csv_safe(value: Any) -> str:
    """A cell a spreadsheet shows as text: formulas are defused with a leading quote."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return "'" + text if text[:1] in _FORMULA_STARTS else text


def jsonl_lines(rows: Iterator[dict[str, Any]]) -> Iterator[str]:
    """One JSON object per line, whatever line ends the stored text holds."""
    for row in rows:
        yield dumps_line(row)


def csv_lines(rows: Iterator[dict[str, Any]]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(review_export.EXPORT_FIELDS)
    for row in rows:
        writer.writerow([csv_safe(row[name]) for name in review_export.EXPORT_FIELDS])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    yield buffer.getvalue()


async def _in_thread(lines: Iterator[str], chunk_lines: int = 200) -> AsyncIterator[str]:
    """Pull a blocking iterator in a worker thread, a chunk at a time, without holding the event loop."""

    def take() -> str:
        parts = []
        for line in lines:
            parts.append(line)
            if len(parts) >= chunk_lines:
                break
        return "".join(parts)

    while chunk := await asyncio.to_thread(take):
        yield chunk


# ---- routes ------------------------------------------------------------------------------------------------


def error(status: int, message: str, code: str, param: str | None = None) -> JSONResponse:
    return JSONResponse(
        {"error": {"message": message, "type": "invalid_request_error", "code": code, "param": param}},
        status_code=status,
    )


async def guarded(request: Request, access: ReviewAccess, work: Callable[[str], Any]) -> Response:
    """Access check, then the handler; every failure becomes a JSON error, never a 500 with a trace."""
    try:
        who = access.reviewer(dict(request.headers), dict(request.cookies))
        return await work(who)
    except AccessDenied as exc:
        return error(exc.status, exc.message, exc.code)
    except BadRequest as exc:
        return error(400, exc.message, "invalid_request", exc.param)
    except review.NotFound as exc:
        return error(404, str(exc), "not_found")
    except StoreError as exc:
        return error(400, str(exc), "invalid_request")


def build_router(store: Store, access: ReviewAccess) -> APIRouter:
    router = APIRouter(prefix="/api")
    _session_routes(router, store, access)
    _file_routes(router, store, access)
    return router


def _session_routes(router: APIRouter, store: Store, access: ReviewAccess) -> None:
    @router.get("/sessions")
    async def sessions(request: Request) -> Response:
        async def work(who: str) -> Response:
            params = dict(request.query_params)
            f, limit = filter_from(params), page_limit(params.get("limit"))
            page = await asyncio.to_thread(
                review.list_sessions, store, f, limit=limit, cursor=params.get("cursor")
            )
            log_read(who, "sessions", filters=_filters_for_log(params), count=len(page.sessions))
            return JSONResponse(
                {"sessions": [summary_json(s) for s in page.sessions], "next_cursor": page.next_cursor}
            )

        return await guarded(request, access, work)

    @router.get("/sessions/{session_id}")
    async def one_session(request: Request, session_id: str) -> Response:
        async def work(who: str) -> Response:
            body = await asyncio.to_thread(session_detail, store, session_id)
            if body is None:
                return error(404, "No such session.", "session_not_found")
            log_read(who, f"session:{session_id}")
            return JSONResponse(body)

        return await guarded(request, access, work)

    @router.post("/sessions/{session_id}/annotations")
    async def annotate(request: Request, session_id: str) -> Response:
        async def work(who: str) -> Response:
            body = await _annotation_body(request)
            note = await asyncio.to_thread(
                review.add_annotation,
                store,
                session_id,
                message_id=body.message_id,
                author=who,
                label=body.label,
                note=body.note,
            )
            log_read(who, f"annotate:{session_id}", message_id=body.message_id)
            return JSONResponse(annotation_json(note), status_code=201)

        return await guarded(request, access, work)


def _file_routes(router: APIRouter, store: Store, access: ReviewAccess) -> None:
    @router.get("/export")
    async def export(request: Request) -> Response:
        async def work(who: str) -> Response:
            params = dict(request.query_params)
            fmt = params.get("format", "jsonl")
            if fmt not in ("jsonl", "csv"):
                raise BadRequest("format must be jsonl or csv", "format")
            rows = review_export.export_rows(store, filter_from(params))
            lines = jsonl_lines(rows) if fmt == "jsonl" else csv_lines(rows)
            log_read(who, "export", filters=_filters_for_log(params), format=fmt)
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            media = "application/x-ndjson" if fmt == "jsonl" else "text/csv; charset=utf-8"
            headers = {
                "Content-Disposition": f'attachment; filename="railchat-export-{stamp}.{fmt}"',
                "X-Content-Type-Options": "nosniff",
                "Cache-Control": "no-store",
            }
            return StreamingResponse(_in_thread(lines), media_type=media, headers=headers)

        return await guarded(request, access, work)

    @router.get("/attachments/{sha256}")
    async def attachment(request: Request, sha256: str) -> Response:
        async def work(who: str) -> Response:
            if not SHA256.match(sha256):
                raise BadRequest("sha256 must be 64 lowercase hex digits", "sha256")
            thumbnail = request.query_params.get("thumbnail") in ("1", "true")
            data = await asyncio.to_thread(review.stored_image, store, sha256, thumbnail=thumbnail)
            if data is None:
                return error(404, "No such image.", "attachment_not_found")
            log_read(who, f"attachment:{sha256}", thumbnail=thumbnail)
            return image_response(data, THUMBNAIL_MIME if thumbnail else None)

        return await guarded(request, access, work)


def image_response(data: bytes, hint: str | None) -> Response:
    """Stored images only as the image types a browser renders inertly; nothing is sniffed or scripted."""
    mime = sniff_mime(data) or hint or ""
    if mime not in SERVED_IMAGES:
        mime = "application/octet-stream"
    headers = {
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox",
        "Cache-Control": "private, no-store",
        "Content-Disposition": "inline" if mime in SERVED_IMAGES else "attachment",
    }
    return Response(data, media_type=mime, headers=headers)


async def _annotation_body(request: Request) -> AnnotationIn:
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json":  # exactly: "text/plain; x=application/json" is a simple request
        raise BadRequest("send the annotation as application/json")
    try:
        return AnnotationIn.model_validate_json(await request.body())
    except ValidationError as exc:
        first = exc.errors()[0]
        raise BadRequest(f"{'.'.join(map(str, first['loc'])) or 'body'}: {first['msg']}") from None


def _filters_for_log(params: dict[str, str]) -> str:
    keys = ("owner", "client", "status", "rail", "model", "since", "until")
    shown = {k: params[k] for k in keys if params.get(k)}
    if params.get("q"):
        shown["q"] = f"<{len(params['q'])} chars>"  # search text may quote what was said
    return json.dumps(shown, sort_keys=True)


def install(app: FastAPI, store: Store, access: ReviewAccess) -> None:
    app.include_router(build_router(store, access))
