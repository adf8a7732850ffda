"""A scripted OpenAI-compatible upstream shaped like vLLM, for edge cases a real small model cannot produce:
reasoning deltas, tool calls, links in answers, broken streams, slow tokens, client disconnects, guard-model
verdicts (a request without ``stream: true`` gets one JSON completion).

Each chat request pops the next `Script` (or repeats the default). Every request body is recorded, and
so is the moment the client went away, so tests can assert what reached the model and how fast a
blocked answer was cancelled.

`engine` shapes the server like another OpenAI-compatible engine an operator may attach to:
- "vllm": `/health`, chat-form `/tokenize`, `max_model_len` in `/v1/models`; reasoning in `reasoning`; a tool
  call streamed as its id and name, then argument fragments.
- "sglang": `/health`, no chat-form `/tokenize`; reasoning in `reasoning_content`; every delta repeats
  `content`/`reasoning_content` as null, tool-call fragments repeat `id`/`name` as null.
- "ktransformers": no `/health`, no `/tokenize`, `/v1/models` a bare list; no reasoning parser (the thinking
  is in the content between `<think>` and `</think>`); deltas carry every field, unset ones as null.
- "nvidia" (a hosted endpoint): no `/health`, no `/tokenize`, no `max_model_len`; `reasoning_content`,
  `role` on every delta, `usage: null` on every chunk, each tool call whole in one fragment.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from tests.support.threaded_server import ThreadedServer, free_port


@dataclass
class Script:
    answer: list[str] = field(default_factory=lambda: ["Hello", " there", "!"])
    reasoning: list[str] = field(default_factory=list)
    reasoning_field: str = "reasoning"  # vLLM's current name; older servers use "reasoning_content"
    delay_s: float = 0.0  # between deltas
    fail_after: int | None = None  # cut the stream (connection drop) after this many answer deltas
    error_event_after: int | None = None  # send an OpenAI-style error event after this many answer deltas
    status: int = 200
    error_message: str = ""
    finish_reason: str = "stop"
    endless: bool = False  # keep sending answer deltas until the client disconnects
    # (name, arguments JSON) of each tool call, streamed after the answer; finish_reason becomes "tool_calls"
    tool_calls: list[tuple[str, str]] = field(default_factory=list)
    fragment_chars: int = 8  # argument fragment size (vLLM streams arguments in small pieces)


Engine = Literal["vllm", "sglang", "ktransformers", "nvidia"]


@dataclass
class Recorded:
    body: dict[str, Any]
    started: float
    disconnected: float | None = None
    last_sent: float | None = None
    finished: bool = False  # the final chunk (with its finish reason) was sent
    client_port: int | None = None  # tells the client's connections apart (a reused one keeps its port)


class ScriptedUpstream:
    def __init__(
        self, model: str = "scripted-model", max_model_len: int = 4096, engine: Engine = "vllm"
    ) -> None:
        self.model = model
        self.engine: Engine = engine
        self.max_model_len = max_model_len
        self.scripts: list[Script] = []
        self.default = Script()
        self.requests: list[Recorded] = []
        self.tokenize_calls: list[dict[str, Any]] = []
        self.healthy = True
        self.port = free_port()
        self.app = self._build()
        self._server: ThreadedServer | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def chat_bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests]

    def push(self, *scripts: Script) -> None:
        self.scripts.extend(scripts)

    def start(self) -> ScriptedUpstream:
        self._server = ThreadedServer(self.app, port=self.port, lifespan="off").start(timeout_s=10)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()

    # -- the fake server ---------------------------------------------------------------------------------

    def _build(self) -> FastAPI:
        app = FastAPI()

        @app.get("/health")
        async def health() -> JSONResponse:
            if self.engine in ("ktransformers", "nvidia"):
                return JSONResponse({"detail": "Not Found"}, status_code=404)
            return JSONResponse({}, status_code=200 if self.healthy else 503)

        @app.get("/v1/models")
        async def models() -> Any:
            if not self.healthy:
                return JSONResponse({"error": "down"}, status_code=503)
            if self.engine == "ktransformers":
                return [{"id": self.model, "name": self.model}]
            entry: dict[str, Any] = {"id": self.model, "object": "model", "owned_by": self.engine}
            if self.engine in ("vllm", "sglang"):
                entry["max_model_len"] = self.max_model_len
            return {"object": "list", "data": [entry]}

        @app.post("/tokenize")
        async def tokenize(request: Request) -> Any:
            body = await request.json()
            if self.engine != "vllm":
                return JSONResponse({"detail": "Not Found"}, status_code=404)
            self.tokenize_calls.append(body)
            count = 3 + sum(_approx_tokens(m) for m in body.get("messages", []))
            return {"count": count, "max_model_len": self.max_model_len, "tokens": []}

        @app.post("/v1/chat/completions")
        async def chat(request: Request):
            body = await request.json()
            port = request.client.port if request.client else None
            record = Recorded(body=body, started=time.monotonic(), client_port=port)
            self.requests.append(record)
            script = self.scripts.pop(0) if self.scripts else self.default
            if script.status != 200:
                return JSONResponse(
                    {
                        "object": "error",
                        "message": script.error_message,
                        "type": "BadRequestError",
                        "code": script.status,
                    },
                    status_code=script.status,
                )
            if body.get("stream") is not True:  # a guard model (Llama Guard, Qwen3Guard) asked for a verdict
                return JSONResponse(_completion(self.model, "".join(script.answer), script.finish_reason))
            return StreamingResponse(self._stream(script, record, request), media_type="text/event-stream")

        return app

    async def _stream(self, script: Script, record: Recorded, request: Request) -> AsyncIterator[str]:
        try:
            for text in script.reasoning:
                yield self._chunk(self._reasoning_delta(script, text, first=text is script.reasoning[0]))
                record.last_sent = time.monotonic()
                await asyncio.sleep(script.delay_s)
            if script.reasoning and self.engine == "ktransformers":
                yield self._chunk({"content": "</think>\n\n"})
            sent = 0
            answer = list(script.answer)
            while answer or script.endless:
                text = answer.pop(0) if answer else " more"
                if script.fail_after is not None and sent >= script.fail_after:
                    raise ConnectionResetError("scripted upstream drops the connection")
                if script.error_event_after is not None and sent >= script.error_event_after:
                    yield (
                        "data: "
                        + json.dumps({"error": {"message": "scripted failure", "code": 500}})
                        + "\n\n"
                    )
                    return
                yield self._chunk({"content": text})
                record.last_sent = time.monotonic()
                sent += 1
                await asyncio.sleep(script.delay_s)
                if await request.is_disconnected():
                    record.disconnected = time.monotonic()
                    return
            for number, (name, arguments) in enumerate(script.tool_calls):
                for delta in self._tool_call_deltas(number, name, arguments, script.fragment_chars):
                    yield self._chunk({"tool_calls": [delta]})
                    record.last_sent = time.monotonic()
                    sent += 1
                    await asyncio.sleep(script.delay_s)
                    if await request.is_disconnected():
                        record.disconnected = time.monotonic()
                        return
            finish = "tool_calls" if script.tool_calls else script.finish_reason
            yield self._chunk({}, finish_reason=finish)
            record.finished = True
            yield (
                "data: "
                + json.dumps(
                    {
                        "id": "x",
                        "object": "chat.completion.chunk",
                        "model": self.model,
                        "choices": [],
                        "usage": {"prompt_tokens": 10, "completion_tokens": sent, "total_tokens": 10 + sent},
                    }
                )
                + "\n\n"
            )
            yield "data: [DONE]\n\n"
        except asyncio.CancelledError:
            record.disconnected = time.monotonic()
            raise

    def _reasoning_delta(self, script: Script, text: str, first: bool) -> dict[str, Any]:
        if self.engine == "ktransformers":  # no reasoning parser: the thinking is in the content
            return {"content": ("<think>\n" if first else "") + text}
        field_name = script.reasoning_field if self.engine == "vllm" else "reasoning_content"
        return {field_name: text}

    def _tool_call_deltas(self, number: int, name: str, arguments: str, size: int) -> list[dict[str, Any]]:
        call_id = f"chatcmpl-tool-{number}{int(time.monotonic() * 1000) % 100000}"
        head = {"index": number, "id": call_id, "type": "function", "function": {"name": name}}
        if self.engine == "nvidia":  # the whole call in one piece
            return [{**head, "function": {"name": name, "arguments": arguments}}]
        pieces = [arguments[i : i + size] for i in range(0, len(arguments), size)]
        if self.engine == "sglang":
            head["function"]["arguments"] = ""
            return [head] + [
                {"index": number, "id": None, "type": "function", "function": {"name": None, "arguments": p}}
                for p in pieces
            ]
        return [head] + [{"index": number, "function": {"arguments": p}} for p in pieces]

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> str:
        """One chunk as this engine writes it."""
        if self.engine == "sglang":
            delta = {"role": None, "content": None, "reasoning_content": None, "tool_calls": None, **delta}
        elif self.engine == "ktransformers":
            unset = {
                "content": None,
                "function_call": None,
                "refusal": None,
                "role": None,
                "tool_calls": None,
            }
            delta = {**unset, **delta}
        elif self.engine == "nvidia":
            delta = {"role": "assistant", **delta}
        payload = json.loads(_chunk(self.model, delta, finish_reason)[len("data: ") :])
        if self.engine == "nvidia":
            payload["usage"] = None
        if self.engine == "sglang":
            payload["choices"][0]["matched_stop"] = None
        return "data: " + json.dumps(payload) + "\n\n"


def _chunk(model: str, delta: dict[str, Any], finish_reason: str | None = None) -> str:
    payload = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }
    return "data: " + json.dumps(payload) + "\n\n"


def _completion(model: str, content: str, finish_reason: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}
        ],
    }


def _approx_tokens(message: dict[str, Any]) -> int:
    content = message.get("content", "")
    if isinstance(content, list):
        return (
            sum(len(p.get("text", "")) // 4 + (64 if p.get("type") == "image_url" else 0) for p in content)
            + 4
        )
    return len(str(content)) // 4 + 4
