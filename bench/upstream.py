"""The load benchmark's model server: an OpenAI-compatible upstream shaped like vLLM that answers every chat
request after ``first_ms`` and then streams ``chunks`` one-word deltas ``gap_ms`` apart.

What it answers is ``bench.answers``: by default a new answer for every request (the ``(request N)`` in its
question names which), or with ``--answers repeat`` one text for all.

A bare ASGI app on uvicorn in its own process, so that the server every system talks to costs the measured
processes nothing and stays the same for all of them. Non-streamed requests (NeMo Guardrails' server asks
for one when it holds the whole answer) get the same text after the same total time.

    python -m bench.upstream --port 8400 [--first-ms 200 --chunks 64 --gap-ms 20 --answers distinct]
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from bench.answers import MODES, answer_words, request_number

MODEL = "bench-model"
MAX_MODEL_LEN = 32768

Send = Callable[[dict[str, Any]], Awaitable[None]]


def _sse(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
    payload = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


class Upstream:
    def __init__(self, first_ms: float, chunks: int, gap_ms: float, answers: str = "distinct") -> None:
        self.first_s = first_ms / 1000
        self.gap_s = gap_ms / 1000
        self.chunks = chunks
        self.answers = answers
        # The repeated answer pre-encoded; a new one is encoded once per request, before its first delta.
        self.repeated = [_sse({"content": w}) for w in answer_words("repeat", chunks, 0)]
        self.tail = (
            _sse({}, "stop")
            + b"data: "
            + json.dumps(
                {
                    "id": "chatcmpl-bench",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": MODEL,
                    "choices": [],
                    "usage": {"prompt_tokens": 10, "completion_tokens": chunks, "total_tokens": 10 + chunks},
                }
            ).encode()
            + b"\n\ndata: [DONE]\n\n"
        )

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (message := await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        path = scope["path"]
        if path.endswith("/chat/completions"):
            request = json.loads(body or b"{}")
            words = answer_words(self.answers, self.chunks, request_number(body))
            if request.get("stream"):
                await self._stream(send, words)
            else:
                await self._whole(send, words)
        elif path.endswith("/models"):
            models = {
                "object": "list",
                "data": [{"id": MODEL, "object": "model", "max_model_len": MAX_MODEL_LEN}],
            }
            await _json(send, models)
        elif path == "/tokenize":
            request = json.loads(body or b"{}")
            count = 3 + sum(len(str(m.get("content", ""))) // 4 + 4 for m in request.get("messages", []))
            await _json(send, {"count": count, "max_model_len": MAX_MODEL_LEN, "tokens": []})
        elif path == "/health":
            await _json(send, {})
        else:
            await _json(send, {"error": "not found"}, status=404)

    async def _stream(self, send: Send, words: list[str]) -> None:
        deltas = self.repeated if self.answers == "repeat" else [_sse({"content": w}) for w in words]
        headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await asyncio.sleep(self.first_s)
        loop = asyncio.get_running_loop()
        start = loop.time()
        for i, delta in enumerate(deltas):
            if i:  # paced against the clock, so a late wake-up does not delay every later chunk
                await asyncio.sleep(max(0.0, start + i * self.gap_s - loop.time()))
            await send({"type": "http.response.body", "body": delta, "more_body": True})
        await send({"type": "http.response.body", "body": self.tail, "more_body": False})

    async def _whole(self, send: Send, words: list[str]) -> None:
        await asyncio.sleep(self.first_s + self.gap_s * (len(words) - 1))
        completion = {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "created": 0,
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "".join(words)},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": len(words), "total_tokens": 10 + len(words)},
        }
        await _json(send, completion)


async def _json(send: Send, value: Any, status: int = 200) -> None:
    body = json.dumps(value).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--first-ms", type=float, default=200)
    parser.add_argument("--chunks", type=int, default=64)
    parser.add_argument("--gap-ms", type=float, default=20)
    parser.add_argument("--answers", choices=MODES, default="distinct")
    args = parser.parse_args()
    app = Upstream(args.first_ms, args.chunks, args.gap_ms, args.answers)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False, backlog=1024)


if __name__ == "__main__":
    main()
