"""The endpoints: `GET /v1/models` and `POST /v1/chat/completions`, a thin adapter over ChatService.

A turn's first events are read before the HTTP status is chosen: bad input, an unknown session or an
upstream that fails before any text still get a plain HTTP error; once text flows, a stream can only end
with a final chunk or an error event.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass, field

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from openai.types import Model

from webapp.turn.events import (
    AnswerDelta,
    InputError,
    Notice,
    ReasoningDelta,
    Retract,
    SessionReady,
    ToolCallDelta,
    TurnDone,
    TurnEvent,
    TurnRequest,
)
from webapp.turn.service import ChatService
from webapp.web.api.request import ApiError, ChatCompletionRequest, decode_body, parse_request, turn_request
from webapp.web.api.response import (
    NOTICE_HEADER,
    SESSION_HEADER,
    Completion,
    ToolCalls,
    error_response,
    failure_of,
)
from webapp.web.api.stream import (
    ClientGone,
    TurnStreamResponse,
    cancel_on_disconnect,
    closing_with,
    log_turn,
    sse_events,
)
from webapp.web.auth import AccessDenied, ApiAccess
from webapp.web.logs import bind_session


@dataclass
class TurnHead:
    """The first events of a turn, read before the HTTP status is chosen, then the rest of the stream."""

    events: AsyncGenerator[TurnEvent, None]
    head: list[TurnEvent] = field(default_factory=list)
    session_id: str | None = None
    notices: list[Notice] = field(default_factory=list)

    async def read(self) -> TurnDone | None:
        """Read up to the first streamed text (or the end). Returns the TurnDone if the turn already ended."""
        async for event in self.events:
            self.head.append(event)
            if isinstance(event, SessionReady):
                self.session_id = event.session_id
                bind_session(event.session_id)
            if isinstance(event, Notice):
                self.notices.append(event)
            if isinstance(event, TurnDone):
                return event
            if isinstance(event, AnswerDelta | ReasoningDelta | ToolCallDelta | Retract):
                return None
        return None

    async def __aiter__(self) -> AsyncIterator[TurnEvent]:
        for event in self.head:
            yield event
        async for event in self.events:
            yield event

    @property
    def headers(self) -> dict[str, str]:
        headers = {SESSION_HEADER: self.session_id or ""}
        if self.notices:
            headers[NOTICE_HEADER] = ",".join(n.code for n in self.notices)
        return headers


async def read_capped(request: Request, limit: int) -> bytes:
    """The body, refused as soon as it passes ``limit``: a chunked body declares no length up front, and
    reading it whole first would let one request fill the server's memory."""
    too_large = ApiError(413, "The request body is too large.", "request_too_large")
    declared = request.headers.get("content-length") or ""
    if declared.isdigit() and int(declared) > limit:
        raise too_large
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise too_large
    return bytes(body)


@dataclass(frozen=True)
class ChatCompletions:
    """`POST /v1/chat/completions`: parse, run the turn, answer as one object or as SSE."""

    service: ChatService
    access: ApiAccess
    stall_s: float  # a streamed answer whose client has taken nothing this long ends (TurnStreamResponse)

    @property
    def max_body(self) -> int:
        options = self.service.options
        return options.max_images * options.max_image_bytes * 4 // 3 + 8 * 2**20  # base64 + text

    async def __call__(self, request: Request) -> Response:
        try:
            parsed, turn = await self._read(request)
        except AccessDenied as exc:
            return error_response(ApiError(exc.status, exc.message, exc.code))
        except ApiError as exc:
            return error_response(exc)
        # A client that leaves before the answer (or, streaming, before its first text) stops the pipeline.
        work = self._stream(turn, parsed) if parsed.stream else self._complete(turn)
        try:
            return await cancel_on_disconnect(request.receive, work)
        except ClientGone:
            return Response(status_code=499)  # nobody is listening; for the access log and metrics

    async def _read(self, request: Request) -> tuple[ChatCompletionRequest, TurnRequest]:
        owner = self.access.owner(request.headers.get("authorization"))
        parsed = parse_request(decode_body(await read_capped(request, self.max_body)), self.service)
        session_id = request.headers.get(SESSION_HEADER) or None
        return parsed, turn_request(parsed, self.service, owner, session_id)

    async def _start(self, turn: TurnRequest) -> tuple[TurnHead, TurnDone | None]:
        head = TurnHead(self.service.run_turn(turn))
        try:
            done = await head.read()
        except InputError as exc:
            raise ApiError(404 if exc.code == "session_not_found" else 400, str(exc), exc.code) from None
        except BaseException:
            await head.events.aclose()
            raise
        return head, done

    async def _complete(self, turn: TurnRequest) -> Response:
        try:
            head, _ = await self._start(turn)
        except ApiError as exc:
            return error_response(exc)
        answer = await _collect(head)
        done = answer.done
        if done is None:
            return error_response(
                ApiError(503, "The answer was interrupted.", "interrupted"), head.session_id
            )
        log_turn(done, stream=False)
        if (failure := failure_of(done)) is not None:
            return error_response(failure, head.session_id)
        if done.kind == "rail":
            answer = _Answer(content=done.message, done=done)
        body = Completion(self.service.served_model).whole(
            answer.content, answer.reasoning, done, answer.tool_calls.openai(), head.notices
        )
        return JSONResponse(body, headers=head.headers)

    async def _stream(self, turn: TurnRequest, parsed: ChatCompletionRequest) -> Response:
        try:
            head, done = await self._start(turn)
        except ApiError as exc:
            return error_response(exc)
        if done is not None and (failure := failure_of(done)) is not None:
            # Nothing was streamed yet: a plain HTTP error is clearer than an error event.
            log_turn(done, stream=True)
            return error_response(failure, head.session_id)
        body = sse_events(head, Completion(self.service.served_model), parsed.include_usage)
        return TurnStreamResponse(closing_with(body, head.events), head.headers, stall_s=self.stall_s)


@dataclass
class _Answer:
    content: str = ""
    reasoning: str = ""
    tool_calls: ToolCalls = field(default_factory=ToolCalls)
    done: TurnDone | None = None


async def _collect(head: TurnHead) -> _Answer:
    """A whole answer from the turn's events (what an output rail retracted is dropped)."""
    answer = _Answer()
    async with aclosing(head.events):
        async for event in head:
            if isinstance(event, AnswerDelta):
                answer.content += event.text
            elif isinstance(event, ReasoningDelta):
                answer.reasoning += event.text
            elif isinstance(event, ToolCallDelta):
                answer.tool_calls.add(event)
            elif isinstance(event, Retract):
                answer = _Answer()
            elif isinstance(event, TurnDone):
                answer.done = event
    return answer


def build_router(service: ChatService, access: ApiAccess, *, stall_s: float) -> APIRouter:
    router = APIRouter(prefix="/v1")

    @router.get("/models")
    async def models(request: Request) -> Response:
        try:
            access.owner(request.headers.get("authorization"))
        except AccessDenied as exc:
            return error_response(ApiError(exc.status, exc.message, exc.code))
        entry = Model(id=service.served_model, object="model", created=0, owned_by="railchat")
        return JSONResponse({"object": "list", "data": [entry.model_dump(exclude_unset=True)]})

    router.add_api_route("/chat/completions", ChatCompletions(service, access, stall_s), methods=["POST"])
    return router
