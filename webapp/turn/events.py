"""What a caller sends to the one-turn pipeline and the frozen events it gets back, one type per step.

The UI and the API are thin adapters over these; metrics observes them. Kept apart from the pipeline so that
adapters and observers import the types without importing the pipeline (and nothing imports upward).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from webapp.guard.verdicts import RailOutcome
from webapp.store.records import Client, FinalStatus
from webapp.upstream.profiles import Mode

# ---- what a caller sends -------------------------------------------------------------------------------

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """``text`` with lone UTF-16 surrogates (JSON's "\\ud800") replaced by U+FFFD: they cannot be encoded
    as UTF-8, so the store, the model server and the browser would all fail on them."""
    return _LONE_SURROGATE.sub("\ufffd", text)


@dataclass(frozen=True)
class ImageInput:
    """An image as the user sent it: raw bytes (upload) and a name for messages, or already prepared."""

    data: bytes
    name: str = "image"
    error: str | None = None  # already known to be unusable (e.g. its URL could not be fetched)
    error_code: str | None = None  # the ImageError code behind `error`


@dataclass(frozen=True)
class HistoryMessage:
    """An earlier message a client resends with a new conversation (OpenAI-style APIs)."""

    role: Literal["user", "assistant", "tool"]
    content: str
    tool_calls: list[dict[str, Any]] | None = None  # an assistant's calls, in OpenAI's shape
    tool_call_id: str | None = None  # a tool result: the call it answers


@dataclass(frozen=True)
class ToolResult:
    """What a client's tool returned for one of the model's calls: the new input of a tool turn."""

    call_id: str
    content: str


@dataclass
class TurnRequest:
    owner: str
    text: str
    client: Client = "ui"
    session_id: str | None = None
    images: Sequence[ImageInput] = ()
    image_urls: Sequence[
        str
    ] = ()  # https URLs (allowlisted hosts only) or data: URLs, fetched by the app itself
    mode: Mode = "instant"
    sampling: dict[str, Any] = field(default_factory=dict)  # explicit client values win over the profile
    max_tokens: int | None = None
    # Earlier turns a client resends with a new conversation (OpenAI-style APIs): stored before the new
    # message and checked by the input rails with it. Ignored when continuing a stored session.
    history: Sequence[HistoryMessage] = ()
    # The new input of a turn that answers the model's tool calls (then `text` is empty).
    tool_results: Sequence[ToolResult] = ()
    # A client's own system prompt: after the operator's, through the input rails, if the settings allow it.
    system_prompt: str = ""
    # Request fields the model server gets as they are (tools, tool_choice, response_format,
    # structured_outputs): chosen and checked by the adapter, never anything that reaches the chat template.
    upstream_fields: Mapping[str, Any] = field(default_factory=dict)
    # Retry: answer the session's newest stored message again instead of a new one (text and images unused).
    retry: bool = False


# ---- what a caller receives ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SessionReady:
    session_id: str
    user_message_id: int


@dataclass(frozen=True)
class ContextInfo:
    tokens: int
    max_model_len: int
    dropped: int
    # What the conversation may use: the window less the answer's reserve (max_tokens) and a small margin.
    budget: int | None = None
    at_most: bool = False  # tokens is an upper bound: the context surely fit, so it was not counted exactly


@dataclass(frozen=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True)
class AnswerDelta:
    text: str


@dataclass(frozen=True)
class ToolCallDelta:
    """A tool call (or more of its arguments) that passed the output rails. `first`: carries id and name."""

    index: int
    call_id: str
    name: str
    arguments: str
    first: bool = True


@dataclass(frozen=True)
class Notice:
    """Something the user should know that does not stop the turn (e.g. images described, not shown)."""

    message: str
    code: str = "notice"  # machine-readable, for API clients: images_described


@dataclass(frozen=True)
class Retract:
    """Everything shown for this answer so far must be taken back (an output rail blocked it)."""


@dataclass(frozen=True)
class TurnDone:
    status: FinalStatus
    answer_id: int | None
    message: str = ""  # refusal or error text for the user; empty when complete
    kind: Literal["ok", "rail", "error", "stopped"] = "ok"
    rail: RailOutcome | None = None
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    ttft_ms: float | None = None
    duration_ms: float | None = None
    reasoning_s: float | None = None
    # Machine-readable cause of an error, so adapters can tell bad input (before the model was asked) from
    # upstream failures: invalid_request, images_not_supported, context_too_long, upstream_rejected,
    # upstream_unavailable, upstream_error, internal_error.
    code: str | None = None
    retry_after_s: int | None = None  # a refusal for now (an admission's): when a retry may be let in


TurnEvent = (
    SessionReady | ContextInfo | Notice | ReasoningDelta | AnswerDelta | ToolCallDelta | Retract | TurnDone
)


class InputError(ValueError):
    """The user's input cannot be processed; str() is the message to show."""

    def __init__(self, message: str, code: str = "invalid_request") -> None:
        super().__init__(message)
        self.code = code


Observe = Callable[[TurnEvent], None]


class TurnObserver(Protocol):
    """What ChatService needs from a metrics sink."""

    def turn(self, client: str) -> AbstractContextManager[Observe]: ...

    def rails(self, outcomes: Sequence[RailOutcome]) -> None: ...
