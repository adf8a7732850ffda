"""The OpenAI streaming wire format as OpenAI-compatible engines speak it, read into plain Deltas.

Engines differ in where they put things: reasoning as `reasoning` (vLLM now) or `reasoning_content` (older
vLLM, SGLang, hosted NVIDIA endpoints) or inside the answer between `<think>` and `</think>` (servers without a
reasoning parser, e.g. KTransformers); tool calls as `delta.tool_calls` fragments, id and name first, with
engines repeating different fields as null.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

DeltaKind = Literal["reasoning", "answer", "tool_call"]


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


def deltas_of(delta: Any, think: ThinkTags) -> list[Delta]:
    """One streamed choice delta as reasoning, answer and tool-call Deltas, in that order."""
    if delta is None:
        return []
    reasoning = reasoning_of(delta)
    found = [Delta("reasoning", reasoning)] if reasoning else []
    if content := _field(delta, "content"):
        found += think.split(content) if not reasoning else [Delta("answer", content)]
    return found + tool_call_deltas(delta) if _field(delta, "tool_calls") else found
