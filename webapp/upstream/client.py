"""The upstream model server, spoken to through the `openai` SDK (plus vLLM's /tokenize and /health).

Everything model-specific comes from the profile; this module only knows the OpenAI wire format and the
ways OpenAI-compatible engines extend it, so attach mode works with any of them:
- reasoning as `reasoning` (vLLM now), `reasoning_content` (older vLLM, SGLang, hosted NVIDIA endpoints), or
  inside the answer between `<think>` and `</think>` (servers without a reasoning parser, e.g. KTransformers);
- tool calls as `delta.tool_calls` fragments (id and name first, then argument pieces), passed on as such;
- `/health` where the engine has one, else `/v1/models` answering is what healthy means;
- `/v1/models` as OpenAI's `{"data": [...]}` or a bare list.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any, Literal

import httpx
import openai

DeltaKind = Literal["reasoning", "answer", "tool_call"]
# Sampling fields the openai SDK takes as arguments; anything else goes into the body as is.
OPENAI_SAMPLING = frozenset(
    {"temperature", "top_p", "presence_penalty", "frequency_penalty", "seed", "stop", "logit_bias"}
)


class UpstreamError(RuntimeError):
    """The model server failed or is unreachable. `user_message` is safe to show."""

    def __init__(self, user_message: str, *, status: int | None = None, detail: str = "") -> None:
        super().__init__(user_message)
        self.user_message = user_message
        self.status = status
        self.detail = detail


class UpstreamUnavailable(UpstreamError):
    pass


class ImagesNotSupported(UpstreamError):
    pass


@dataclass(frozen=True)
class Delta:
    """A piece of the reply. For a tool call: `text` is an argument fragment, `index` tells the calls apart,
    and `call_id`/`name` come with a call's first fragment."""

    kind: DeltaKind
    text: str
    index: int = 0
    call_id: str | None = None
    name: str | None = None


@dataclass
class StreamResult:
    """Filled in while a stream runs; read after it ends."""

    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


def server_root(base_url: str) -> str:
    """`http://h:8000/v1` -> `http://h:8000` (where vLLM's /health and /tokenize live)."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


class ThinkTags:
    """Moves `<think>...</think>` at the start of an answer to reasoning, for engines that leave it in the
    content. Only a leading block: a `<think>` later in an answer is the model talking about tags."""

    OPEN, CLOSE = "<think>", "</think>"

    def __init__(self) -> None:
        self.state: Literal["start", "thinking", "answer"] = "start"
        self.held = ""

    def split(self, content: str) -> list[Delta]:
        if self.state == "answer":
            return [Delta("answer", content)] if content else []
        self.held += content
        if self.state == "start":
            opening = self.held.lstrip()
            if self.OPEN.startswith(opening):
                return []  # "<thi" may still become "<think>"
            if not opening.startswith(self.OPEN):
                return self._answer()
            self.state, self.held = "thinking", opening[len(self.OPEN) :]
        return self._thinking()

    def _thinking(self) -> list[Delta]:
        end = self.held.find(self.CLOSE)
        if end == -1:
            keep = _partial_suffix(self.held, self.CLOSE)  # "</thi" may still become "</think>"
            ready, self.held = self.held[: len(self.held) - keep], self.held[len(self.held) - keep :]
            return [Delta("reasoning", ready)] if ready else []
        reasoning, rest = self.held[:end], self.held[end + len(self.CLOSE) :].lstrip("\n")
        self.held, self.state = "", "answer"
        return [d for d in (Delta("reasoning", reasoning), Delta("answer", rest)) if d.text]

    def _answer(self) -> list[Delta]:
        text, self.held, self.state = self.held, "", "answer"
        return [Delta("answer", text)] if text else []

    def flush(self) -> list[Delta]:
        """At the end of the stream: whatever is held is what it looked like."""
        text, self.held = self.held, ""
        kind: DeltaKind = "reasoning" if self.state == "thinking" else "answer"
        return [Delta(kind, text)] if text else []


def _partial_suffix(text: str, marker: str) -> int:
    """Length of the longest end of `text` that is a beginning of `marker`."""
    for size in range(min(len(marker) - 1, len(text)), 0, -1):
        if marker.startswith(text[-size:]):
            return size
    return 0


def _field(obj: Any, key: str) -> Any:
    """A field of a JSON object as parsed from the stream, or of an SDK object (extra fields included)."""
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None) or (getattr(obj, "model_extra", None) or {}).get(key)


def tool_call_deltas(delta: Any) -> list[Delta]:
    """OpenAI-shaped `delta.tool_calls` fragments as Deltas (engines differ in which fields they repeat)."""
    deltas = []
    for position, call in enumerate(_field(delta, "tool_calls") or ()):
        function = _field(call, "function")
        index = _field(call, "index")
        deltas.append(
            Delta(
                "tool_call",
                (_field(function, "arguments") or "") if function else "",
                index=index if isinstance(index, int) else position,
                call_id=_field(call, "id") or None,
                name=(_field(function, "name") or None) if function else None,
            )
        )
    return deltas


def reasoning_of(delta: Any) -> str:
    """vLLM sends reasoning as `reasoning` (current) or `reasoning_content` (older); read both."""
    for key in ("reasoning", "reasoning_content"):
        value = _field(delta, key)
        if value:
            return str(value)
    return ""


class LLMClient:
    def __init__(self, base_url: str, api_key: str = "EMPTY", *, timeout_s: float = 600.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.root = server_root(self.base_url)
        self._http = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout_s, connect=5.0),
            headers={"Authorization": f"Bearer {api_key}"},
        )
        self._openai = openai.AsyncOpenAI(
            base_url=self.base_url,
            api_key=api_key,
            max_retries=0,
            http_client=self._http,  # type: ignore[arg-type]  # typed as httpx2's client; httpx's works
        )
        self._max_model_len: dict[str, int] = {}

    async def aclose(self) -> None:
        await self._openai.close()

    async def health(self) -> bool:
        """vLLM's and SGLang's `/health`; an engine without one (404, 405) is healthy if it lists models."""
        try:
            response = await self._http.get(f"{self.root}/health", timeout=3.0)
            if response.status_code in (404, 405, 501):
                response = await self._http.get(f"{self.base_url}/models", timeout=3.0)
        except httpx.HTTPError:
            return False
        return response.status_code == 200

    async def models(self) -> list[dict[str, Any]]:
        try:
            response = await self._http.get(f"{self.base_url}/models")
        except httpx.HTTPError as exc:
            raise UpstreamUnavailable("The model server is unavailable right now.") from exc
        if response.status_code != 200:
            raise UpstreamError(
                "The model server refused to list its models.",
                status=response.status_code,
                detail=response.text,
            )
        try:
            body = response.json()
        except ValueError as exc:
            raise UpstreamError("The model server's model list is not JSON.") from exc
        entries = body.get("data") if isinstance(body, dict) else body  # OpenAI's page, or a bare list
        return [e for e in entries or () if isinstance(e, dict) and "id" in e]

    async def first_model(self) -> str:
        models = await self.models()
        if not models:
            raise UpstreamError("The model server serves no model.")
        return str(models[0]["id"])

    async def max_model_len(self, model: str) -> int | None:
        if model not in self._max_model_len:
            for entry in await self.models():
                if entry.get("id") == model and entry.get("max_model_len"):
                    self._max_model_len[model] = int(entry["max_model_len"])
        return self._max_model_len.get(model)

    async def count_tokens(self, model: str, messages: list[dict[str, Any]]) -> int:
        """Exact prompt tokens of a chat messages list via vLLM's POST /tokenize (chat form)."""
        response = await self._http.post(
            f"{self.root}/tokenize",
            json={"model": model, "messages": messages, "add_generation_prompt": True},
            timeout=30.0,
        )
        response.raise_for_status()
        return int(response.json()["count"])

    async def stream_chat(
        self,
        model: str,
        messages: list[dict[str, Any]],
        *,
        sampling: dict[str, Any],
        extra_body: dict[str, Any],
        max_tokens: int,
        result: StreamResult,
    ) -> AsyncGenerator[Delta, None]:
        """Yield reasoning and answer deltas. Closing the iterator closes the HTTP stream (cancels upstream)."""
        standard = {k: v for k, v in sampling.items() if k in OPENAI_SAMPLING}
        # vLLM's own sampling keys (top_k, min_p, repetition_penalty...) travel in the request body.
        body = {**{k: v for k, v in sampling.items() if k not in OPENAI_SAMPLING}, **extra_body}
        request = self._openai.chat.completions.with_streaming_response.create(  # type: ignore[call-overload]
            model=model,
            messages=messages,
            stream=True,
            stream_options={"include_usage": True},
            max_tokens=max_tokens,
            extra_body=body or None,
            **standard,
        )
        try:
            async with request as response:
                async for delta in _deltas(response.http_response, result):
                    yield delta
        except openai.APIConnectionError as exc:
            raise UpstreamUnavailable(
                "The model server is unavailable right now. Try again in a moment."
            ) from exc
        except openai.APIStatusError as exc:
            raise _classify_status_error(exc) from exc
        except httpx.TransportError as exc:
            raise UpstreamUnavailable(
                "The model server stopped answering in the middle of the reply."
            ) from exc


async def _deltas(response: httpx.Response, result: StreamResult) -> AsyncGenerator[Delta, None]:
    """The stream's deltas, read from its server-sent events as plain JSON.

    Lean on purpose: the SDK's typed chunks cost more CPU than the rest of the turn (a py-spy profile at 32
    streams: ~14% of all samples in its model construction), and only a handful of fields are read here.
    """
    think = ThinkTags()
    async for line in response.aiter_lines():
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            break
        chunk = json.loads(data)
        if chunk.get("error"):
            raise UpstreamError(
                "The model server reported an error in the middle of the reply.", detail=str(chunk["error"])
            )
        if usage := chunk.get("usage"):
            result.prompt_tokens = usage.get("prompt_tokens")
            result.completion_tokens = usage.get("completion_tokens")
        for choice in chunk.get("choices") or ():
            for delta in deltas_of(choice.get("delta"), think):
                yield delta
            if choice.get("finish_reason"):
                result.finish_reason = choice["finish_reason"]
    for delta in think.flush():
        yield delta
    if result.finish_reason is None:
        # Every complete OpenAI stream names why it ended; without that the reply was cut somewhere.
        raise UpstreamError("The model server ended the reply before finishing it.")


def deltas_of(delta: Any, think: ThinkTags) -> list[Delta]:
    """One streamed choice delta as reasoning, answer and tool-call Deltas, in that order."""
    if delta is None:
        return []
    reasoning = reasoning_of(delta)
    found = [Delta("reasoning", reasoning)] if reasoning else []
    if content := _field(delta, "content"):
        found += think.split(content) if not reasoning else [Delta("answer", content)]
    return found + tool_call_deltas(delta) if _field(delta, "tool_calls") else found


def _classify_status_error(exc: openai.APIStatusError) -> UpstreamError:
    detail = _error_text(exc)
    if exc.status_code == 400 and "multimodal" in detail.lower():
        return ImagesNotSupported(
            "The served model cannot see images. Send text only, or serve a vision model.",
            status=400,
            detail=detail,
        )
    if exc.status_code == 400 and (
        "maximum context length" in detail.lower() or "too long" in detail.lower()
    ):
        return UpstreamError("The conversation is too long for the model.", status=400, detail=detail)
    if exc.status_code >= 500:
        return UpstreamUnavailable(
            "The model server is unavailable right now.", status=exc.status_code, detail=detail
        )
    return UpstreamError(
        f"The model server refused the request ({exc.status_code}).", status=exc.status_code, detail=detail
    )


def _error_text(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        message = body.get("message") or (body.get("error") or {}).get("message")
        if message:
            return str(message)
    return str(exc.message)
