"""Plain values going in and out of the store (no SQLAlchemy objects leak to callers), and its error."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

Client = Literal["ui", "api", "demo"]
MessageRole = Literal[
    "system", "user", "assistant", "tool"
]  # who wrote a message (user roles live in web/auth)
FinalStatus = Literal["complete", "blocked", "interrupted", "error"]


class StoreError(ValueError):
    """A call that breaks the store's rules (unknown id, final message changed, bad value)."""


@dataclass(frozen=True)
class AttachmentIn:
    """An image as the pipeline prepared it. Failed ones are stored too (error set, data maybe empty)."""

    sha256: str  # of the original upload
    mime: str
    size: int  # of the original upload, bytes
    width: int
    height: int
    data: bytes  # re-encoded: what the model sees
    thumbnail: bytes | None = None
    error: str | None = None


@dataclass(frozen=True)
class AttachmentInfo:
    id: int
    position: int
    sha256: str
    data_sha256: str  # of `data`; the key of the deduplicated blob
    mime: str
    size: int
    width: int
    height: int
    data: bytes
    thumbnail: bytes | None
    error: str | None


@dataclass(frozen=True)
class RailEventIn:
    """A rail verdict to store with a message."""

    stage: str
    rail: str
    decision: str
    reason: str
    latency_ms: float


@dataclass(frozen=True)
class ContextIn:
    """Which messages (in order) the model saw for an answer, and their token count."""

    message_ids: tuple[int, ...]
    tokens: int
    dropped: int


@dataclass(frozen=True)
class RailEventInfo:
    id: int
    message_id: int
    stage: str
    rail: str
    decision: str
    reason: str
    latency_ms: float
    created_at: datetime


@dataclass(frozen=True)
class AnnotationInfo:
    id: int
    message_id: int | None  # None: a note on the whole session
    author: str
    text: str  # the note
    created_at: datetime
    label: str = ""
    session_id: str = ""


@dataclass(frozen=True)
class MessageInfo:
    id: int
    session_id: str
    seq: int
    role: str
    content: str
    reasoning: str
    status: str
    mode: str | None
    params: dict[str, Any] | None
    model: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    ttft_ms: float | None
    duration_ms: float | None
    finish_reason: str | None
    error: str | None
    created_at: datetime
    updated_at: datetime
    hash: str | None
    prev_hash: str | None
    chain_pos: int | None
    shown_content: str | None = None
    context_tokens: int | None = None
    context_dropped: int | None = None
    context_message_ids: list[int] = field(default_factory=list)  # what this answer saw, in order
    attachments: list[AttachmentInfo] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] | None = None  # an assistant's calls, in OpenAI's shape
    tool_call_id: str | None = None  # a tool result: the call it answers
    rail_events: list[RailEventInfo] = field(default_factory=list)
    annotations: list[AnnotationInfo] = field(default_factory=list)


@dataclass(frozen=True)
class SessionInfo:
    id: str
    owner: str
    client: str
    title: str | None
    model: str
    created_at: datetime
    updated_at: datetime
    deleted_at: datetime | None
    message_count: int
    chain_head: str = ""
    chain_length: int = 0
