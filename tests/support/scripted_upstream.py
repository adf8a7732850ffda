"""A scripted OpenAI-compatible upstream shaped like vLLM, for edge cases a real small model cannot produce:
reasoning deltas, links in answers, broken streams, slow tokens, client disconnects.

Each chat request pops the next `Script` (or repeats the default). Every request body is recorded, and
so is the moment the client went away, so tests can assert what reached the model and how fast a
blocked answer was cancelled.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

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


@dataclass
class Recorded:
    body: dict[str, Any]
    started: float
    disconnected: float | None = None
    last_sent: float | None = None


class ScriptedUpstream:
    def __init__(self, model: str = "scripted-model", max_model_len: int = 4096) -> None:
        self.model = model
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
            return JSONResponse({}, status_code=200 if self.healthy else 503)

        @app.get("/v1/models")
        async def models() -> dict[str, Any]:
            return {
                "object": "list",
                "data": [{"id": self.model, "object": "model", "max_model_len": self.max_model_len}],
            }

        @app.post("/tokenize")
        async def tokenize(request: Request) -> dict[str, Any]:
            body = await request.json()
            self.tokenize_calls.append(body)
            count = 3 + sum(_approx_tokens(m) for m in body.get("messages", []))
            return {"count": count, "max_model_len": self.max_model_len, "tokens": []}

        @app.post("/v1/chat/completions")
        async def chat(request: Request):
            body = await request.json()
            record = Recorded(body=body, started=time.monotonic())
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
            return StreamingResponse(self._stream(script, record, request), media_type="text/event-stream")

        return app

    async def _stream(self, script: Script, record: Recorded, request: Request) -> AsyncIterator[str]:
        try:
            for text in script.reasoning:
                yield _chunk(self.model, {script.reasoning_field: text})
                record.last_sent = time.monotonic()
                await asyncio.sleep(script.delay_s)
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
                yield _chunk(self.model, {"content": text})
                record.last_sent = time.monotonic()
                sent += 1
                await asyncio.sleep(script.delay_s)
                if await request.is_disconnected():
                    record.disconnected = time.monotonic()
                    return
            yield _chunk(self.model, {}, finish_reason=script.finish_reason)
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


def _chunk(model: str, delta: dict[str, Any], finish_reason: str | None = None) -> str:
    payload = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }
    return "data: " + json.dumps(payload) + "\n\n"


def _approx_tokens(message: dict[str, Any]) -> int:
    content = message.get("content", "")
    if isinstance(content, list):
        return (
            sum(len(p.get("text", "")) // 4 + (64 if p.get("type") == "image_url" else 0) for p in content)
            + 4
        )
    return len(str(content)) // 4 + 4
