"""The upstream model server, spoken to through the `openai` SDK (plus vLLM's /tokenize and /health).

Everything model-specific comes from the profile; this module only knows the OpenAI wire format and
vLLM's extensions (`reasoning` / `reasoning_content` deltas, `/tokenize` in chat form).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
import openai

DeltaKind = Literal["reasoning", "answer"]
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
    kind: DeltaKind
    text: str


@dataclass
class StreamResult:
    """Filled in while a stream runs; read after it ends."""

    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    usage: dict[str, Any] = field(default_factory=dict)


def server_root(base_url: str) -> str:
    """`http://h:8000/v1` -> `http://h:8000` (where vLLM's /health and /tokenize live)."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def reasoning_of(delta: Any) -> str:
    """vLLM sends reasoning as `reasoning` (current) or `reasoning_content` (older); read both."""
    extra = getattr(delta, "model_extra", None) or {}
    for key in ("reasoning", "reasoning_content"):
        value = getattr(delta, key, None) or extra.get(key)
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
            base_url=self.base_url, api_key=api_key, max_retries=0, http_client=self._http
        )
        self._max_model_len: dict[str, int] = {}

    async def aclose(self) -> None:
        await self._openai.close()

    async def health(self) -> bool:
        try:
            response = await self._http.get(f"{self.root}/health", timeout=3.0)
        except httpx.HTTPError:
            return False
        return response.status_code == 200

    async def models(self) -> list[dict[str, Any]]:
        try:
            page = await self._openai.models.list()
        except openai.APIConnectionError as exc:
            raise UpstreamUnavailable("The model server is unavailable right now.") from exc
        except openai.APIError as exc:
            raise UpstreamError("The model server refused to list its models.", detail=str(exc)) from exc
        return [m.model_dump() for m in page.data]

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
        try:
            stream = await self._openai.chat.completions.create(
                model=model,
                messages=messages,  # type: ignore[arg-type]
                stream=True,
                stream_options={"include_usage": True},
                max_tokens=max_tokens,
                extra_body=body or None,
                **standard,
            )
        except openai.APIConnectionError as exc:
            raise UpstreamUnavailable(
                "The model server is unavailable right now. Try again in a moment."
            ) from exc
        except openai.APIStatusError as exc:
            raise _classify_status_error(exc) from exc
        try:
            async for chunk in stream:
                if chunk.usage is not None:
                    result.prompt_tokens = chunk.usage.prompt_tokens
                    result.completion_tokens = chunk.usage.completion_tokens
                for choice in chunk.choices:
                    reasoning = reasoning_of(choice.delta)
                    if reasoning:
                        yield Delta("reasoning", reasoning)
                    if choice.delta.content:
                        yield Delta("answer", choice.delta.content)
                    if choice.finish_reason:
                        result.finish_reason = choice.finish_reason
            if result.finish_reason is None:
                # Every complete OpenAI stream names why it ended; without that the reply was cut somewhere.
                raise UpstreamError("The model server ended the reply before finishing it.")
        except (openai.APIConnectionError, httpx.TransportError) as exc:
            raise UpstreamUnavailable(
                "The model server stopped answering in the middle of the reply."
            ) from exc
        except openai.APIError as exc:
            raise UpstreamError(
                "The model server reported an error in the middle of the reply.", detail=str(exc)
            ) from exc
        finally:
            await stream.close()


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
