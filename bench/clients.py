"""One streamed chat turn as a user of each system sees it: when the first answer text arrived, when the
answer was complete, and whether it was the whole answer.

``openai_turn`` speaks the OpenAI streaming API (the upstream itself, railchat's ``/v1``, NeMo Guardrails'
server); ``gradio_turn`` speaks the Gradio queue protocol the browser uses (join, then read the event
stream) and rebuilds the Chatbot value from Gradio's diffs, so "first content" is the first answer word a
browser could paint.
"""

from __future__ import annotations

import html
import json
import re
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
from gradio_client.utils import apply_diff


@dataclass(frozen=True)
class Turn:
    first_s: float | None  # first answer text seen by the client
    total_s: float  # the answer complete (or the turn failed)
    complete: bool  # the whole expected answer arrived and the turn ended normally
    error: str | None = None
    received: int = 0  # bytes of the event stream's data lines (the Gradio queue's; 0 for the others)


async def openai_turn(
    client: httpx.AsyncClient,
    url: str,
    question: str,
    expected: str,
    extra: dict[str, Any] | None = None,
    *,
    stream: bool = True,
) -> Turn:
    body = {
        "model": "bench-model",
        "messages": [{"role": "user", "content": question}],
        "stream": stream,
        "max_tokens": 256,
        **(extra or {}),
    }
    if not stream:
        return await _whole_turn(client, url, body, expected)
    started = time.perf_counter()
    first: float | None = None
    text, finish, done = [], None, False
    try:
        async with client.stream("POST", url, json=body) as response:
            if response.status_code != 200:
                await response.aread()
                return Turn(None, time.perf_counter() - started, False, f"HTTP {response.status_code}")
            async for line in response.aiter_lines():
                if not line.startswith("data: "):
                    continue
                if line == "data: [DONE]":
                    done = True
                    break
                chunk = json.loads(line[6:])
                if "error" in chunk:
                    return Turn(first, time.perf_counter() - started, False, str(chunk["error"])[:200])
                for choice in chunk.get("choices") or ():
                    content = (choice.get("delta") or {}).get("content")
                    if content:
                        first = first or time.perf_counter() - started
                        text.append(content)
                    finish = choice.get("finish_reason") or finish
    except httpx.HTTPError as exc:
        return Turn(first, time.perf_counter() - started, False, f"{type(exc).__name__}: {exc}"[:200])
    total = time.perf_counter() - started
    answer = "".join(text)
    complete = done and finish == "stop" and answer.strip() == expected.strip()
    return Turn(
        first, total, complete, None if complete else f"incomplete: finish={finish} {len(answer)} chars"
    )


async def _whole_turn(client: httpx.AsyncClient, url: str, body: dict[str, Any], expected: str) -> Turn:
    """A non-streamed answer: its first content is the whole answer."""
    started = time.perf_counter()
    try:
        response = await client.post(url, json=body)
    except httpx.HTTPError as exc:
        return Turn(None, time.perf_counter() - started, False, f"{type(exc).__name__}: {exc}"[:200])
    total = time.perf_counter() - started
    if response.status_code != 200:
        return Turn(None, total, False, f"HTTP {response.status_code}")
    choice = (response.json().get("choices") or [{}])[0]
    answer = (choice.get("message") or {}).get("content") or ""
    complete = answer.strip() == expected.strip() and choice.get("finish_reason") in ("stop", None)
    return Turn(
        total if answer else None, total, complete, None if complete else f"incomplete: {answer[:80]!r}"
    )


@dataclass(frozen=True)
class GradioSubmit:
    """Where the chat box's submit event lives in a Gradio app, read from its /config."""

    root: str
    fn_index: int
    trigger_id: int
    chatbot_output: int  # position of the Chatbot among the event's outputs
    inputs: tuple[Any, ...]  # what a fresh page sends: each input's initial value (the box's is replaced)
    box: int  # position of the chat box among the event's inputs
    then: tuple[tuple[int, tuple[Any, ...]], ...] = ()  # events chained after it (fn index, inputs), in order

    @classmethod
    async def discover(cls, client: httpx.AsyncClient, root: str) -> GradioSubmit:
        config = (await client.get(f"{root}/config")).json()
        components = {c["id"]: c for c in config["components"]}
        types = {i: c.get("type") for i, c in components.items()}
        for dep in config["dependencies"]:
            for target, event in dep.get("targets", []):
                if types.get(target) == "multimodaltextbox" and event == "submit":
                    outputs = [types.get(o) for o in dep["outputs"]]
                    inputs = tuple((components[i].get("props") or {}).get("value") for i in dep["inputs"])
                    box = [types.get(i) for i in dep["inputs"]].index("multimodaltextbox")
                    then = tuple(
                        (d["id"], tuple((components[i].get("props") or {}).get("value") for i in d["inputs"]))
                        for d in config["dependencies"]
                        if d.get("trigger_after") == dep["id"]
                    )
                    return cls(root, dep["id"], target, outputs.index("chatbot"), inputs, box, then)
        raise RuntimeError("no chat box submit event in the Gradio config")


async def gradio_turn(client: httpx.AsyncClient, submit: GradioSubmit, question: str, expected: str) -> Turn:
    """The submit event, then the events the page chains after it (the input unlocked, the chat list): the
    turn is over for the user when the page is ready for the next message."""
    session = secrets.token_hex(6)
    inputs = list(submit.inputs)
    inputs[submit.box] = {"text": question, "files": []}
    started = time.perf_counter()
    first: float | None = None
    outputs = _Outputs()
    received = [0]
    try:
        for fn_index, data in ((submit.fn_index, inputs), *submit.then):
            event = _Outputs() if fn_index != submit.fn_index else outputs
            async for kind, output in _event(client, submit, session, fn_index, list(data), received):
                if kind == "error":
                    return Turn(first, time.perf_counter() - started, False, str(output)[:200])
                event.apply(output.get("data") or [])
                if first is None and _answer(outputs.shown, submit.chatbot_output):
                    first = time.perf_counter() - started
    except httpx.HTTPError as exc:
        return Turn(first, time.perf_counter() - started, False, f"{type(exc).__name__}: {exc}"[:200])
    total = time.perf_counter() - started
    answer = _answer(outputs.shown, submit.chatbot_output)
    complete = _visible_text(answer) == " ".join(expected.split())
    error = None if complete else f"incomplete: {len(answer)} chars: {answer[-60:]!r}"
    return Turn(first, total, complete, error, received[0])


async def _event(
    client: httpx.AsyncClient,
    submit: GradioSubmit,
    session: str,
    fn_index: int,
    data: list[Any],
    received: list[int],
) -> AsyncIterator[tuple[str, dict[str, Any]]]:
    """One queued event as the page runs it: join, then its outputs as they stream ("error" ends it).

    The stream is read to Gradio's ``close_stream``, as the page's client does: a client that hangs up at
    ``process_completed`` cancels the server's stream before it sends that, and Gradio then drops the
    session's message queue, so the next event on the same session gets a 404."""
    join = await client.post(
        f"{submit.root}/gradio_api/queue/join",
        json={
            "data": data,
            "event_data": None,
            "fn_index": fn_index,
            "trigger_id": submit.trigger_id,
            "session_hash": session,
        },
    )
    if join.status_code != 200:
        yield "error", {"join": join.status_code}
        return
    url = f"{submit.root}/gradio_api/queue/data"
    async with client.stream("GET", url, params={"session_hash": session}) as response:
        async for line in response.aiter_lines():
            if not line.startswith("data: "):
                continue
            received[0] += len(line.encode())
            message = json.loads(line[6:])
            kind = message.get("msg")
            if kind in ("process_generating", "process_completed"):
                output = message.get("output") or {}
                if not message.get("success", True) or "error" in output and output["error"]:
                    yield "error", output
                    return
                yield kind, output
            elif kind == "close_stream":
                return


class _Outputs:
    """The event's outputs as Gradio streams them: the first message carries values, later ones diffs
    against the previous raw values (update dicts included); ``shown`` is what the page displays."""

    def __init__(self) -> None:
        self.raw: list[Any] | None = None
        self.shown: list[Any] = []

    def apply(self, data: list[Any]) -> None:
        if self.raw is None:
            self.raw = list(data)
            self.shown = [None] * len(data)
        else:
            self.raw = [
                apply_diff(old, new) if _is_diff(new) else new
                for old, new in zip(self.raw, data, strict=True)
            ]
        self.shown = [_shown(old, new) for old, new in zip(self.shown, self.raw, strict=True)]


def _shown(old: Any, value: Any) -> Any:
    if (
        isinstance(value, dict) and value.get("__type__") == "update"
    ):  # gr.update(): only what it names changes
        return value["value"] if "value" in value else old
    return value


def _is_diff(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(op, list) and len(op) == 3 and op[0] in ("replace", "append", "add", "delete")
        for op in value
    )


def _answer(outputs: list[Any] | None, index: int) -> str:
    messages = outputs[index] if outputs and index < len(outputs) else None
    if not isinstance(messages, list):
        return ""
    texts = [
        m.get("content") if isinstance(m.get("content"), str) else _text_parts(m.get("content"))
        for m in messages
        if isinstance(m, dict) and m.get("role") == "assistant" and not (m.get("metadata") or {}).get("title")
    ]
    return "".join(t for t in texts if t)


_COPY_BUTTON = re.compile(r'<div class="message-copy">.*?</div>', re.S)  # its hidden copy of the text


def _visible_text(rendered: str) -> str:
    """The words a reader sees in the Chatbot's message (the UI sends answers rendered to HTML)."""
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", _COPY_BUTTON.sub(" ", rendered))).split())


def _text_parts(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""
