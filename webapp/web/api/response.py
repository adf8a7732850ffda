"""OpenAI response objects built from the pipeline's `TurnDone` and deltas, with the `openai` package's types.

The types keep the wire shape honest (the fields an OpenAI client expects, and no more); railchat's own
additions ride as extra fields the way vLLM adds them: `reasoning` on a message or delta, and a top-level
`guardrails` object when a rail blocked. Objects are dumped with `exclude_unset`, so a field is on the wire
exactly when it was set here (`finish_reason: null` on a chunk, but no `refusal` or `audio`).
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from fastapi.responses import JSONResponse
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionChunk,
    ChatCompletionMessage,
    ChatCompletionMessageFunctionToolCall,
    ChatCompletionMessageToolCallUnion,
)
from openai.types.chat import chat_completion as whole
from openai.types.chat import chat_completion_chunk as chunked
from openai.types.completion_usage import CompletionUsage
from openai.types.shared import ErrorObject

from webapp.turn.events import Notice, ToolCallDelta, TurnDone
from webapp.web.api.request import ApiError

SESSION_HEADER = "X-Session-Id"
NOTICE_HEADER = "X-Railchat-Notices"  # codes of the turn's notices, comma separated
ERROR_STATUS = {  # TurnDone.code -> HTTP status for a failure that happened before anything was streamed
    "invalid_request": 400,
    "image_fetch_failed": 502,  # an allowlisted image the app could not download: not the client's fault
    "images_not_supported": 400,
    "context_too_long": 400,
    "upstream_rejected": 400,
    "upstream_unavailable": 503,
    "upstream_error": 502,
    "internal_error": 503,
    # Not now (admissions): the API's cap on turns at once, and the demo's limits under an API key
    "too_many_turns": 429,
    "server_busy": 429,
    "rate_limited": 429,
    "busy": 429,
    "quota_exhausted": 429,  # as OpenAI's own spent quota: a 429 no retry can help
    "invite_invalid": 403,
}

# The error types OpenAI's API sends with these statuses (a 429 for too many requests is type "requests").
_ERROR_TYPE = {401: "authentication_error", 403: "permission_error", 429: "requests"}
_CODE_TYPE = {"quota_exhausted": "insufficient_quota"}


# ---- errors --------------------------------------------------------------------------------------------------


class NotNow(ApiError):
    """A turn refused for now (an admission): an ApiError with the seconds to send as Retry-After, which the
    openai SDK waits before its own retry (None: no wait helps)."""

    def __init__(self, status: int, message: str, code: str, retry_after_s: int | None) -> None:
        super().__init__(status, message, code)
        self.retry_after_s = retry_after_s


def error_body(message: str, code: str, status: int, param: str | None = None) -> dict[str, Any]:
    kind = _CODE_TYPE.get(code) or _ERROR_TYPE.get(
        status, "invalid_request_error" if status < 500 else "server_error"
    )
    error = ErrorObject(message=message, type=kind, code=code, param=param)
    return {"error": error.model_dump(exclude_unset=True)}


def error_response(error: ApiError, session_id: str | None = None) -> JSONResponse:
    headers = {SESSION_HEADER: session_id} if session_id else {}
    if isinstance(error, NotNow) and error.retry_after_s is not None:
        headers["Retry-After"] = str(error.retry_after_s)
    elif error.status == 429:
        headers["x-should-retry"] = "false"  # no later time will do (a spent quota): the openai SDK gives up
    return JSONResponse(
        error_body(error.message, error.code, error.status, error.param),
        status_code=error.status,
        headers=headers,
    )


def failure_of(done: TurnDone) -> ApiError | None:
    """The turn's error as an API error, or None when it ended normally (answered or blocked)."""
    if done.status != "error":
        return None
    code = done.code or "internal_error"
    status = ERROR_STATUS.get(code, 503)
    message = done.message or "The answer failed."
    if done.retry_after_s is not None:
        return NotNow(status, message, code, done.retry_after_s)
    return ApiError(status, message, code)


# ---- parts of an answer ----------------------------------------------------------------------------------------


def guardrails_of(done: TurnDone) -> dict[str, str] | None:
    if done.kind != "rail" or done.rail is None:
        return None
    return {"stage": done.rail.stage, "rail": done.rail.rail, "reason": done.rail.reason}


def usage_of(done: TurnDone) -> CompletionUsage | None:
    if done.prompt_tokens is None and done.completion_tokens is None:
        return None
    prompt, completion = done.prompt_tokens or 0, done.completion_tokens or 0
    return CompletionUsage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )


def notices_of(notices: list[Notice]) -> list[dict[str, str]]:
    return [{"code": n.code, "message": n.message} for n in notices]


def tool_call_delta(event: ToolCallDelta) -> dict[str, Any]:
    """One `delta.tool_calls` entry: id, type and name with a call's first piece, then arguments only."""
    if not event.first:
        return {"index": event.index, "function": {"arguments": event.arguments}}
    function = {"name": event.name, "arguments": event.arguments}
    return {"index": event.index, "id": event.call_id, "type": "function", "function": function}


class ToolCalls:
    """The calls of a non-streamed answer, put together from the deltas that passed the rails."""

    def __init__(self) -> None:
        self.calls: dict[int, dict[str, Any]] = {}

    def add(self, event: ToolCallDelta) -> None:
        call = self.calls.get(event.index)
        if call is None:
            self.calls[event.index] = {k: v for k, v in tool_call_delta(event).items() if k != "index"}
        else:
            call["function"]["arguments"] += event.arguments

    def openai(self) -> list[dict[str, Any]] | None:
        return [self.calls[i] for i in sorted(self.calls)] or None


def finish_reason_of(done: TurnDone) -> str:
    return "content_filter" if done.kind == "rail" else (done.finish_reason or "stop")


def sse(body: dict[str, Any]) -> str:
    return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"


_PLACEHOLDER = "\x00railchat-delta\x00"  # JSON-escaped, so it cannot occur in the rendered rest of a chunk


# ---- whole objects ---------------------------------------------------------------------------------------------


class Completion:
    """Builds the OpenAI objects of one answer: one id and creation time for all its chunks."""

    def __init__(self, model: str) -> None:
        self.id = f"chatcmpl-{uuid.uuid4().hex}"
        self.created = int(time.time())
        self.model = model
        self._text_chunks: dict[str, tuple[str, str]] = {}

    def text_chunk(self, field: str, text: str) -> str:
        """``chunk({field: text})`` for the many deltas of a stream, without building an object per delta:
        the typed chunk is rendered once per field around a placeholder and the text spliced in."""
        parts = self._text_chunks.get(field)
        if parts is None:
            head, _, tail = self.chunk({field: _PLACEHOLDER}).partition(json.dumps(_PLACEHOLDER))
            parts = self._text_chunks[field] = (head, tail)
        return parts[0] + json.dumps(text, ensure_ascii=False) + parts[1]

    def chunk(self, delta: dict[str, Any], finish_reason: str | None = None, **top: Any) -> str:
        """One SSE event. `delta` may carry `reasoning`; `top` adds top-level fields such as `guardrails`."""
        # Constructed, not validated: the finish reason is the upstream's and may be one OpenAI never sends.
        choice = chunked.Choice.model_construct(
            index=0, delta=chunked.ChoiceDelta(**delta), finish_reason=finish_reason, logprobs=None
        )
        body = ChatCompletionChunk(
            id=self.id,
            object="chat.completion.chunk",
            created=self.created,
            model=self.model,
            choices=[choice],
            **top,
        )
        return sse(body.model_dump(exclude_unset=True))

    def usage_chunk(self, usage: CompletionUsage) -> str:
        body = ChatCompletionChunk(
            id=self.id,
            object="chat.completion.chunk",
            created=self.created,
            model=self.model,
            choices=[],
            usage=usage,
        )
        return sse(body.model_dump(exclude_unset=True))

    def whole(
        self,
        content: str,
        reasoning: str,
        done: TurnDone,
        tool_calls: list[dict[str, Any]] | None = None,
        notices: list[Notice] | None = None,
    ) -> dict[str, Any]:
        added: dict[str, Any] = {"reasoning": reasoning or None}  # vLLM's field, not OpenAI's
        calls: list[ChatCompletionMessageToolCallUnion] | None = [
            ChatCompletionMessageFunctionToolCall.model_validate(c) for c in tool_calls or ()
        ] or None
        content_or_none = None if calls and not content else content  # OpenAI: null content beside tool calls
        message = ChatCompletionMessage(role="assistant", content=content_or_none, tool_calls=calls, **added)
        choice = whole.Choice.model_construct(
            index=0, message=message, finish_reason=finish_reason_of(done), logprobs=None
        )
        usage = usage_of(done) or CompletionUsage(prompt_tokens=0, completion_tokens=0, total_tokens=0)
        extra: dict[str, Any] = {"guardrails": rails} if (rails := guardrails_of(done)) is not None else {}
        if notices:
            extra["notices"] = notices_of(notices)
        body = ChatCompletion(
            id=self.id,
            object="chat.completion",
            created=self.created,
            model=self.model,
            choices=[choice],
            usage=usage,
            **extra,
        )
        return body.model_dump(exclude_unset=True)
