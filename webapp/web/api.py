"""The OpenAI-compatible API: `GET /v1/models` and `POST /v1/chat/completions`, a thin adapter over ChatService.

Requests become a `TurnRequest` (client "api"); `TurnEvent`s become an OpenAI response or SSE chunks. The
upstream request is built by ChatService alone, so nothing a client sends reaches vLLM unless it is
mapped here on purpose; fields known to be dangerous there are refused with a 400 naming the field.

Conversation: with `X-Session-Id` the stored session is the history and only the last user message of the
request is new. Without it a new session is created and the earlier user/assistant messages of the request
(text only) are stored first as its history, so clients that resend the whole conversation work as expected.
Client `system`/`developer` messages are not used: the app's system prompt applies.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Coroutine
from contextlib import aclosing
from typing import Any, Literal

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.types import Receive, Scope, Send

from webapp.turn.events import (
    AnswerDelta,
    InputError,
    ReasoningDelta,
    Retract,
    SessionReady,
    TurnDone,
    TurnEvent,
    TurnRequest,
)
from webapp.turn.service import ChatService
from webapp.upstream.profiles import Mode
from webapp.web.auth import AccessDenied, ApiAccess
from webapp.web.logs import bind_session

log = logging.getLogger(__name__)

SESSION_HEADER = "X-Session-Id"
# Fields that would let a client change what vLLM renders or where the app connects (Jinja injection,
# multimodal-processor DoS, key leaks). `chat_template_kwargs` is checked key by key.
REFUSED_FIELDS = (
    "chat_template",
    "media_io_kwargs",
    "mm_processor_kwargs",
    "api_base",
    "base_url",
    "api_key",
    "api_version",
    "api_type",
    "organization",
    "extra_body",
    "extra_headers",
)
SAMPLING_FIELDS = ("temperature", "top_p", "top_k", "presence_penalty", "frequency_penalty", "seed", "stop")
ERROR_STATUS = {  # TurnDone.code -> HTTP status for a failure that happened before anything was streamed
    "invalid_request": 400,
    "images_not_supported": 400,
    "context_too_long": 400,
    "upstream_rejected": 400,
    "upstream_unavailable": 503,
    "upstream_error": 502,
    "internal_error": 503,
}


# ---- request shape -------------------------------------------------------------------------------------------


class ApiError(Exception):
    def __init__(self, status: int, message: str, code: str, param: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.code, self.param = status, message, code, param


class ImageUrl(BaseModel):
    url: str


class ContentPart(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: str
    text: str | None = None
    image_url: ImageUrl | str | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[ContentPart] | None = None


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="ignore")
    include_usage: bool = False


class ChatCompletionRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")  # unknown harmless fields are ignored (never forwarded)
    model: str | None = None
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    n: int = 1
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    thinking: bool | None = None
    reasoning_effort: str | None = None
    chat_template_kwargs: dict[str, Any] | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    top_k: int | None = None
    presence_penalty: float | None = Field(default=None, ge=-2, le=2)
    frequency_penalty: float | None = Field(default=None, ge=-2, le=2)
    seed: int | None = None
    stop: str | list[str] | None = None


def parse_request(body: Any, service: ChatService) -> ChatCompletionRequest:
    if not isinstance(body, dict):
        raise ApiError(400, "The request body must be a JSON object.", "invalid_json")
    for name in REFUSED_FIELDS:
        if name in body:
            raise ApiError(
                400, f"The field '{name}' is not accepted by this server.", f"{name}_not_allowed", name
            )
    try:
        request = ChatCompletionRequest.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise ApiError(400, f"Invalid request: {where}: {first['msg']}", "invalid_request", where) from None
    if request.n != 1:
        raise ApiError(400, "Only n=1 is supported.", "n_not_allowed", "n")
    thinking_key = service.profile.thinking_key
    for key, value in (request.chat_template_kwargs or {}).items():
        if key != thinking_key or not isinstance(value, bool):
            field = f"chat_template_kwargs.{key}"
            hint = f" Only '{thinking_key}' (true/false) is accepted." if thinking_key else ""
            raise ApiError(
                400,
                f"The field '{field}' is not accepted by this server.{hint}",
                f"{field}_not_allowed",
                field,
            )
    return request


def mode_of(request: ChatCompletionRequest, service: ChatService) -> Mode:
    """`thinking`, else the profile's chat_template_kwargs key, else `reasoning_effort`, else the model default."""
    key = service.profile.thinking_key
    if request.thinking is not None:
        return "thinking" if request.thinking else "instant"
    if key and request.chat_template_kwargs and key in request.chat_template_kwargs:
        return "thinking" if request.chat_template_kwargs[key] else "instant"
    if request.reasoning_effort is not None:
        return "instant" if request.reasoning_effort in ("none", "minimal") else "thinking"
    return "thinking" if service.profile.can_think else "instant"  # thinking models think unless told not to


def text_and_images(message: ChatMessage) -> tuple[str, list[str]]:
    if message.content is None or isinstance(message.content, str):
        return message.content or "", []
    texts: list[str] = []
    urls: list[str] = []
    for index, part in enumerate(message.content):
        if part.type == "text" and part.text is not None:
            texts.append(part.text)
        elif part.type == "image_url" and part.image_url is not None:
            urls.append(part.image_url if isinstance(part.image_url, str) else part.image_url.url)
        else:
            raise ApiError(
                400,
                f"Content parts of type '{part.type}' are not supported; send text and image_url.",
                "unsupported_content_part",
                f"messages.content.{index}",
            )
    return "\n".join(texts), urls


def turn_request(
    request: ChatCompletionRequest, service: ChatService, owner: str, session_id: str | None
) -> TurnRequest:
    last = request.messages[-1]
    if last.role != "user":
        raise ApiError(
            400, "The last message must be the user's new message.", "last_message_not_user", "messages"
        )
    text, image_urls = text_and_images(last)
    history: list[tuple[Literal["user", "assistant"], str]] = []
    if session_id is None:  # with a session, the stored conversation is the history
        for message in request.messages[:-1]:
            if message.role in ("user", "assistant"):
                earlier, _ = text_and_images(message)  # images of earlier turns are not kept
                if earlier.strip():
                    history.append((message.role, earlier))  # type: ignore[arg-type]
    max_tokens = request.max_completion_tokens or request.max_tokens
    sampling = {
        name: getattr(request, name) for name in SAMPLING_FIELDS if getattr(request, name) is not None
    }
    return TurnRequest(
        owner=owner,
        text=text,
        client="api",
        session_id=session_id,
        image_urls=image_urls,
        mode=mode_of(request, service),
        sampling=sampling,
        history=history,
        max_tokens=min(max_tokens, service.max_tokens_cap) if max_tokens else None,
    )


# ---- response shape --------------------------------------------------------------------------------------------


def error_body(message: str, code: str, status: int, param: str | None = None) -> dict[str, Any]:
    kind = "invalid_request_error" if status < 500 else "server_error"
    if status == 401:
        kind = "authentication_error"
    return {"error": {"message": message, "type": kind, "code": code, "param": param}}


def error_response(error: ApiError, session_id: str | None = None) -> JSONResponse:
    headers = {SESSION_HEADER: session_id} if session_id else None
    return JSONResponse(
        error_body(error.message, error.code, error.status, error.param),
        status_code=error.status,
        headers=headers,
    )


def guardrails_of(done: TurnDone) -> dict[str, str] | None:
    if done.kind != "rail" or done.rail is None:
        return None
    return {"stage": done.rail.stage, "rail": done.rail.rail, "reason": done.rail.reason}


def usage_of(done: TurnDone) -> dict[str, int] | None:
    if done.prompt_tokens is None and done.completion_tokens is None:
        return None
    prompt, completion = done.prompt_tokens or 0, done.completion_tokens or 0
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def failure_of(done: TurnDone) -> ApiError | None:
    if done.status != "error":
        return None
    code = done.code or "internal_error"
    return ApiError(ERROR_STATUS.get(code, 503), done.message or "The answer failed.", code)


class Completion:
    """Builds OpenAI objects for one answer."""

    def __init__(self, model: str) -> None:
        self.id = f"chatcmpl-{uuid.uuid4().hex}"
        self.created = int(time.time())
        self.model = model

    def chunk(self, delta: dict[str, Any], finish_reason: str | None = None, **top: Any) -> str:
        body = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}],
            **top,
        }
        return sse(body)

    def usage_chunk(self, usage: dict[str, int]) -> str:
        return sse(
            {
                "id": self.id,
                "object": "chat.completion.chunk",
                "created": self.created,
                "model": self.model,
                "choices": [],
                "usage": usage,
            }
        )

    def whole(self, content: str, reasoning: str, done: TurnDone) -> dict[str, Any]:
        message = {
            "role": "assistant",
            "content": content,
            "reasoning": reasoning or None,
            "tool_calls": None,
        }
        body: dict[str, Any] = {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [
                {"index": 0, "message": message, "finish_reason": finish_reason_of(done), "logprobs": None}
            ],
            "usage": usage_of(done) or {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }
        if (rails := guardrails_of(done)) is not None:
            body["guardrails"] = rails
        return body


def finish_reason_of(done: TurnDone) -> str:
    return "content_filter" if done.kind == "rail" else (done.finish_reason or "stop")


def sse(body: dict[str, Any]) -> str:
    return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"


# ---- streaming -----------------------------------------------------------------------------------------------


class _Prefetched:
    """The first events of a turn, read before the HTTP status is chosen, then the rest of the stream."""

    def __init__(self, events: AsyncGenerator[TurnEvent, None]) -> None:
        self.events = events
        self.head: list[TurnEvent] = []
        self.session_id: str | None = None

    async def read_head(self) -> TurnDone | None:
        """Read up to the first streamed text (or the end). Returns the TurnDone if the turn already ended."""
        async for event in self.events:
            self.head.append(event)
            if isinstance(event, SessionReady):
                self.session_id = event.session_id
                bind_session(event.session_id)
            if isinstance(event, TurnDone):
                return event
            if isinstance(event, AnswerDelta | ReasoningDelta | Retract):
                return None
        return None

    async def __aiter__(self) -> AsyncIterator[TurnEvent]:
        for event in self.head:
            yield event
        async for event in self.events:
            yield event


async def sse_events(turn: _Prefetched, completion: Completion, include_usage: bool) -> AsyncIterator[str]:
    yield completion.chunk({"role": "assistant", "content": ""})
    async for event in turn:
        if isinstance(event, ReasoningDelta):
            yield completion.chunk({"reasoning": event.text})
        elif isinstance(event, AnswerDelta):
            yield completion.chunk({"content": event.text})
        elif isinstance(event, TurnDone):
            log_turn(event, stream=True)
            if (failure := failure_of(event)) is not None:
                # The client saw part of an answer that was cut: an error event, never a normal finish.
                yield sse(error_body(failure.message, failure.code, failure.status))
                return
            if event.kind == "rail":  # the refusal as content; with an output block, discard what came before
                yield completion.chunk(
                    {"content": event.message}, "content_filter", guardrails=guardrails_of(event)
                )
            else:
                yield completion.chunk({}, finish_reason_of(event))
            if include_usage and (usage := usage_of(event)) is not None:
                yield completion.usage_chunk(usage)
            yield "data: [DONE]\n\n"
            return


class TurnStreamResponse(StreamingResponse):
    """SSE that stops the pipeline when the client goes away.

    Starlette's StreamingResponse cancels its body through an anyio cancel scope, which also cancels every
    await in the pipeline's cleanup (the answer would stay "streaming"). Here the body runs in a plain asyncio
    task, cancelled once on disconnect, and awaited: the upstream request is closed and the answer stored as
    interrupted before the handler returns.
    """

    def __init__(self, body: AsyncIterator[str], headers: dict[str, str]) -> None:
        super().__init__(
            body, headers={**headers, "Cache-Control": "no-cache"}, media_type="text/event-stream"
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        pump = asyncio.ensure_future(self._pump(send))
        watch = asyncio.ensure_future(_disconnected(receive))
        try:
            await asyncio.wait({pump, watch}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watch.cancel()
            if not pump.done():
                pump.cancel()
            try:
                await pump
            except (asyncio.CancelledError, OSError):
                pass

    async def _pump(self, send: Send) -> None:
        async with aclosing(self.body_iterator) as chunks:
            await send(
                {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
            )
            async for chunk in chunks:
                data = chunk if isinstance(chunk, bytes) else str(chunk).encode()
                await send({"type": "http.response.body", "body": data, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _until_disconnect(receive: Receive, work: Coroutine[Any, Any, Response]) -> Response:
    """Run `work` (an endpoint's job, the request body already read); cancel it if the client goes away."""
    job = asyncio.ensure_future(work)
    watch = asyncio.ensure_future(_disconnected(receive))
    try:
        await asyncio.wait({job, watch}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watch.cancel()
        if not job.done():
            job.cancel()  # once, as plain asyncio: the pipeline's cleanup stores the answer as interrupted
    try:
        return await job
    except asyncio.CancelledError:
        if not watch.cancelled() and watch.done():
            return Response(status_code=499)  # nobody is listening; for the access log and metrics
        raise


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


# ---- endpoints -------------------------------------------------------------------------------------------------


def log_turn(done: TurnDone, *, stream: bool) -> None:
    log.info(
        "chat completion %s",
        done.status,
        extra={
            "status": done.status,
            "stream": stream,
            "code": done.code,
            "rail": done.rail.rail if done.rail else None,
            "prompt_tokens": done.prompt_tokens,
            "completion_tokens": done.completion_tokens,
            "ttft_ms": round(done.ttft_ms, 1) if done.ttft_ms is not None else None,
        },
    )


def build_router(service: ChatService, access: ApiAccess) -> APIRouter:
    router = APIRouter(prefix="/v1")
    max_body = service.max_images * service.max_image_bytes * 4 // 3 + 8 * 2**20  # base64 images + text

    @router.get("/models")
    async def models(request: Request) -> Response:
        try:
            access.owner(request.headers.get("authorization"))
        except AccessDenied as exc:
            return error_response(ApiError(exc.status, exc.message, exc.code))
        entry = {"id": service.served_model, "object": "model", "created": 0, "owned_by": "railchat"}
        return JSONResponse({"object": "list", "data": [entry]})

    @router.post("/chat/completions")
    async def chat_completions(request: Request) -> Response:
        try:
            owner = access.owner(request.headers.get("authorization"))
            if int(request.headers.get("content-length") or 0) > max_body:
                raise ApiError(413, "The request body is too large.", "request_too_large")
            try:
                body = json.loads(await request.body())
            except (ValueError, RecursionError):
                raise ApiError(400, "The request body is not valid JSON.", "invalid_json") from None
            parsed = parse_request(body, service)
            session_id = request.headers.get(SESSION_HEADER) or None
            turn = turn_request(parsed, service, owner, session_id)
        except AccessDenied as exc:
            return error_response(ApiError(exc.status, exc.message, exc.code))
        except ApiError as exc:
            return error_response(exc)
        # A client that leaves before the answer (or, streaming, before its first text) stops the pipeline.
        return await _until_disconnect(
            request.receive, stream(turn, parsed) if parsed.stream else complete(turn)
        )

    async def start(turn: TurnRequest) -> tuple[_Prefetched, TurnDone | None]:
        prefetched = _Prefetched(service.run_turn(turn))
        try:
            done = await prefetched.read_head()
        except InputError as exc:
            raise ApiError(404 if exc.code == "session_not_found" else 400, str(exc), exc.code) from None
        except BaseException:
            await prefetched.events.aclose()
            raise
        return prefetched, done

    async def complete(turn: TurnRequest) -> Response:
        try:
            prefetched, _ = await start(turn)
        except ApiError as exc:
            return error_response(exc)
        content, reasoning, done = "", "", None
        async with aclosing(prefetched.events):
            async for event in prefetched:
                if isinstance(event, AnswerDelta):
                    content += event.text
                elif isinstance(event, ReasoningDelta):
                    reasoning += event.text
                elif isinstance(event, Retract):
                    content, reasoning = "", ""
                elif isinstance(event, TurnDone):
                    done = event
        headers = {SESSION_HEADER: prefetched.session_id or ""}
        if done is None:
            return error_response(
                ApiError(503, "The answer was interrupted.", "interrupted"), prefetched.session_id
            )
        log_turn(done, stream=False)
        if (failure := failure_of(done)) is not None:
            return error_response(failure, prefetched.session_id)
        if done.kind == "rail":
            content, reasoning = done.message, ""
        return JSONResponse(Completion(service.served_model).whole(content, reasoning, done), headers=headers)

    async def stream(turn: TurnRequest, parsed: ChatCompletionRequest) -> Response:
        try:
            prefetched, done = await start(turn)
        except ApiError as exc:
            return error_response(exc)
        if done is not None and (failure := failure_of(done)) is not None:
            # Nothing was streamed yet: a plain HTTP error is clearer than an error event.
            log_turn(done, stream=True)
            return error_response(failure, prefetched.session_id)
        include_usage = bool(parsed.stream_options and parsed.stream_options.include_usage)
        body = sse_events(prefetched, Completion(service.served_model), include_usage)
        return TurnStreamResponse(
            _closing_with(body, prefetched), {SESSION_HEADER: prefetched.session_id or ""}
        )

    return router


async def _closing_with(body: AsyncGenerator[str, None], turn: _Prefetched) -> AsyncIterator[str]:
    """Closing the SSE body closes the pipeline (cancels the upstream, stores the answer as interrupted)."""
    try:
        async with aclosing(body) as chunks:
            async for chunk in chunks:
                yield chunk
    finally:
        await turn.events.aclose()


def install(app: FastAPI, service: ChatService, access: ApiAccess) -> None:
    app.include_router(build_router(service, access))
