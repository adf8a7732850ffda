"""The upstream model server: streamed chat completions, plus vLLM's /tokenize and /health.

Everything model-specific comes from the profile; this module only knows the OpenAI wire format (``wire``)
and the ways OpenAI-compatible engines extend it, so attach mode works with any of them:
- `/health` where the engine has one, else `/v1/models` answering is what healthy means;
- `/v1/models` as OpenAI's `{"data": [...]}` or a bare list.

The chat request goes out through httpx itself, not the openai SDK: the body is a plain JSON object (the
messages are already in OpenAI's shape), and the SDK's request building (its type-driven transform of every
message, its retries and headers) was 8% of the app's CPU at 16 streams for nothing the app uses. The stream
comes back through ``sse``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from webapp.upstream.direct import DirectStreams, can_serve
from webapp.upstream.sse import delta_batches
from webapp.upstream.wire import (
    Delta,
    ImagesNotSupported,
    StreamResult,
    ThinkTags,
    UpstreamError,
    UpstreamUnavailable,
    deltas_of,
    reasoning_of,
    tool_call_deltas,
)

__all__ = [
    "Delta",
    "ImagesNotSupported",
    "LLMClient",
    "StreamResult",
    "ThinkTags",
    "UpstreamError",
    "UpstreamUnavailable",
    "deltas_of",
    "reasoning_of",
    "server_root",
    "tool_call_deltas",
]
# Idle connections kept open to the upstream: one per concurrent stream, so a new turn does not connect anew.
KEEPALIVE_CONNECTIONS = 128
CONNECT_TIMEOUT_S = 5.0


def server_root(base_url: str) -> str:
    """`http://h:8000/v1` -> `http://h:8000` (where vLLM's /health and /tokenize live)."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


class LLMClient:
    def __init__(
        self, base_url: str, api_key: str = "EMPTY", *, timeout_s: float = 600.0, direct: bool | None = None
    ) -> None:
        """direct: stream answers over the app's own connections (``direct``); by default where that is plain
        http without a proxy, else through httpx."""
        self.base_url = base_url.rstrip("/")
        self.root = server_root(self.base_url)
        auth = {"Authorization": f"Bearer {api_key}"}
        self._http = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout_s, connect=CONNECT_TIMEOUT_S),
            headers=auth,
            limits=httpx.Limits(max_keepalive_connections=KEEPALIVE_CONNECTIONS),
        )
        self._direct = (
            DirectStreams(
                self.base_url,
                auth,
                connect_timeout_s=CONNECT_TIMEOUT_S,
                read_timeout_s=timeout_s,
                keep=KEEPALIVE_CONNECTIONS,
            )
            if (can_serve(self.base_url) if direct is None else direct)
            else None
        )
        self._max_model_len: dict[str, int] = {}

    async def aclose(self) -> None:
        if self._direct is not None:
            self._direct.close()
        await self._http.aclose()

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
        batches = self.stream_batches(
            model, messages, sampling=sampling, extra_body=extra_body, max_tokens=max_tokens, result=result
        )
        try:
            async for batch in batches:
                for delta in batch:
                    yield delta
        finally:
            await batches.aclose()

    async def stream_batches(
        self,
        model: str,
        messages: list[dict[str, Any]],
        *,
        sampling: dict[str, Any],
        extra_body: dict[str, Any],
        max_tokens: int,
        result: StreamResult,
    ) -> AsyncGenerator[list[Delta], None]:
        """The deltas as they arrived: one list per piece read from the upstream (several deltas when they
        came together). Closing the iterator closes the HTTP stream, and vLLM aborts the request."""
        body = {
            "model": model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "max_tokens": max_tokens,
            # the profile's sampling, then the client's tools and vLLM's own keys (top_k, chat_template_kwargs)
            **sampling,
            **extra_body,
        }
        async with self._chat_stream(body) as raw:
            async for batch in delta_batches(raw, result):
                yield batch

    @asynccontextmanager
    async def _chat_stream(self, body: dict[str, Any]) -> AsyncGenerator[AsyncIterator[bytes], None]:
        """The response body's raw pieces once the upstream accepted the request; its refusal as an
        UpstreamError. Leaving the block closes the response (and its connection, if unfinished)."""
        content = json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if self._direct is not None:
            opened = self._direct.post("/chat/completions", content, headers)
        else:
            opened = self._httpx_post("/chat/completions", content, headers)
        answering = False
        try:
            async with opened as (status, pieces):
                answering = True
                if status >= 400:
                    text = b"".join([piece async for piece in pieces]).decode(errors="replace")
                    raise status_error(status, text)
                yield pieces
        except httpx.HTTPError as exc:
            if not answering:  # could not connect, or no answer in time
                raise UpstreamUnavailable(
                    "The model server is unavailable right now. Try again in a moment."
                ) from exc
            raise UpstreamUnavailable(
                "The model server stopped answering in the middle of the reply."
            ) from exc

    @asynccontextmanager
    async def _httpx_post(
        self, path: str, content: bytes, headers: dict[str, str]
    ) -> AsyncGenerator[tuple[int, AsyncIterator[bytes]], None]:
        """The same as ``DirectStreams.post``, through httpx (https, proxies)."""
        request = self._http.build_request("POST", self.base_url + path, content=content, headers=headers)
        response = await self._http.send(request, stream=True)
        try:
            yield response.status_code, response.aiter_raw()
        finally:
            await response.aclose()


def status_error(status: int, text: str) -> UpstreamError:
    """The upstream's refusal of a request (its HTTP status and body) as an error a user can read."""
    detail = _error_text(text)
    lowered = detail.lower()
    if status == 400 and "multimodal" in lowered:
        return ImagesNotSupported(
            "The served model cannot see images. Send text only, or serve a vision model.",
            status=400,
            detail=detail,
        )
    if status == 400 and ("maximum context length" in lowered or "too long" in lowered):
        return UpstreamError("The conversation is too long for the model.", status=400, detail=detail)
    if status >= 500:
        return UpstreamUnavailable("The model server is unavailable right now.", status=status, detail=detail)
    return UpstreamError(f"The model server refused the request ({status}).", status=status, detail=detail)


def _error_text(text: str) -> str:
    """The message of an OpenAI-style error body (`{"error": {"message"}}` or vLLM's `{"message"}`), else
    the body as it came."""
    try:
        body = json.loads(text)
    except ValueError:
        return text.strip()
    if isinstance(body, dict):
        error = body.get("error")
        message = body.get("message") or (error.get("message") if isinstance(error, dict) else error)
        if message:
            return str(message)
    return text.strip()
