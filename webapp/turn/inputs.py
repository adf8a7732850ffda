"""What a turn takes in besides the user's text: a client's system prompt, resent history, tool results.

API clients (IDE plugins, agents) send their own system prompt, whole conversations, and the results of the
tools the model called. All of it is text the model will read, so all of it goes through the input rails;
tool results must answer calls the model really made, so a client cannot slip in a "result" for nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

from webapp.guard.verdicts import RailOutcome
from webapp.store import MessageInfo, Store
from webapp.turn.context import ContextMessage
from webapp.turn.events import InputError, TurnRequest, valid_text

ClientSystemPrompts = Literal["append", "ignore"]


def system_prompt_for(operator: str | None, request: TurnRequest, policy: ClientSystemPrompts) -> str | None:
    """The operator's system prompt first, always; the client's after it when the settings allow."""
    client = request.system_prompt.strip() if policy == "append" else ""
    parts = [p for p in (operator, client) if p]
    return "\n\n".join(parts) or None


def rail_text(request: TurnRequest, descriptions: Sequence[str], policy: ClientSystemPrompts) -> str:
    """Everything the model will read that the client sent: its system prompt, its tool definitions, resent
    history (with the tool calls it claims the model made), the new message or tool results, and image
    descriptions (QR text!)."""
    history = []
    for message in request.history:
        history.append(message.content)
        for call in message.tool_calls or ():
            function = call.get("function") or {}
            history += [str(function.get("name", "")), str(function.get("arguments", ""))]
    system = [request.system_prompt] if policy == "append" else []
    tools = tool_text(request.upstream_fields.get("tools"))
    results = [r.content for r in request.tool_results]
    return "\n\n".join(t for t in [*system, *tools, *history, request.text, *results, *descriptions] if t)


# A JSON Schema's "$schema" names its dialect ("http://json-schema.org/draft-07/schema#", in every tool that
# zod or an MCP server describes); no model is meant to read it, and the URL allowlist would refuse it. Only a
# published dialect's URL is let by: the template renders the value whatever it holds.
_SCHEMA_DIALECT = re.compile(r"https?://json-schema\.org/(?:draft-0[3-7]/|draft/20\d\d-\d\d/)?schema#?")


def tool_text(tools: Any) -> list[str]:
    """What a chat template renders from a client's tool definitions, as text: every name, description,
    property name, enum value and default, each its own line (``neutralise_tools`` only defuses tokens)."""
    if isinstance(tools, str):
        return [tools]
    if isinstance(tools, dict):
        texts = []
        for key, value in tools.items():
            if not _is_dialect(key, value):
                texts += [str(key), *tool_text(value)]
        return texts
    if isinstance(tools, list | tuple):
        return [text for item in tools for text in tool_text(item)]
    return []


def _is_dialect(key: Any, value: Any) -> bool:
    return key == "$schema" and isinstance(value, str) and _SCHEMA_DIALECT.fullmatch(value) is not None


def check_tool_results(request: TurnRequest, stored: Sequence[MessageInfo]) -> None:
    """With a stored session, tool results must answer calls of its last complete answer (a retry after a
    failed answer may send them again)."""
    if not request.tool_results or not request.session_id:
        return
    last = next((m for m in reversed(stored) if m.role == "assistant" and m.status == "complete"), None)
    called = {str(c.get("id")) for c in (last.tool_calls or ())} if last else set()
    for result in request.tool_results:
        if result.call_id not in called:
            raise InputError(
                "A tool result must answer a call the assistant made in its last answer.",
                code="unknown_tool_call_id",
            )


def store_history(
    store: Store, session_id: str, request: TurnRequest, *, blocked: RailOutcome | None = None
) -> None:
    """The conversation a client resent with a new session, stored before the new input (blocking); as
    blocked if the input rails blocked it, so it never reaches the model (reviewers still see it)."""
    for message in request.history:
        store.add_message(
            session_id,
            role=message.role,
            content=message.content,
            mode=request.mode,
            status="blocked" if blocked else "complete",
            error=blocked.reason if blocked else None,
            tool_calls=message.tool_calls,
            tool_call_id=message.tool_call_id,
        )


GARBLED_TEXT = (
    "Your message contains characters that are not valid Unicode (unpaired UTF-16 surrogates). "
    "It was kept with them replaced by \ufffd; send it again as valid text."
)
HISTORY_MESSAGES_OF_TEXT = 4  # resent history may hold this many maximum-length messages of text
# ...and at most this many messages, however short: each is stored and judged by the rails on its own, so its
# cost does not shrink with its text (20,000 messages of two words, 0.8 MB, kept the server busy for 110 s).
MAX_HISTORY_MESSAGES = 1_000


def check_history_size(request: TurnRequest, max_message_chars: int) -> None:
    """Resent history is bounded like a message: rails and storage read all of it before the model."""
    total = sum(len(m.content or "") for m in request.history)
    limit = max_message_chars * HISTORY_MESSAGES_OF_TEXT
    if total > limit:
        raise InputError(
            f"The resent conversation is too long ({total:,} characters; the limit is {limit:,}). "
            "Continue the stored session with X-Session-Id instead of resending it.",
            code="history_too_long",
        )
    if len(request.history) > MAX_HISTORY_MESSAGES:
        raise InputError(
            f"The resent conversation has too many messages ({len(request.history):,}; the limit is "
            f"{MAX_HISTORY_MESSAGES:,}). Continue the stored session with X-Session-Id instead of resending it.",
            code="history_too_long",
        )


def input_problem(request: TurnRequest, garbled: bool, max_chars: int, max_images: int) -> str | None:
    """Why the input cannot be processed (its text garbled first), in words for the user; None if it can."""
    return (GARBLED_TEXT if garbled else None) or problem_with(request, max_chars, max_images)


def store_input_and_read(
    store: Store, session_id: str, *, request: TurnRequest, problem: str | None
) -> tuple[int, list[MessageInfo]]:
    """Step 1 for input without images, and the session read back for the rails and the context (blocking:
    one thread hand-off for both). Returns the input's id and the transcript."""
    return store_input(store, session_id, request, problem), store.messages(session_id)


def store_input(store: Store, session_id: str, request: TurnRequest, problem: str | None) -> int:
    """Step 1 for input without images: the user's text, or the tool results (each its own message), stored
    final at once. Returns the id of the last one stored (blocking)."""
    status = "error" if problem else "complete"
    if not request.tool_results:
        return store.add_message(
            session_id, role="user", content=request.text, status=status, mode=request.mode, error=problem
        )
    ids = [
        store.add_message(
            session_id,
            role="tool",
            content=result.content,
            status=status,
            mode=request.mode,
            error=problem,
            tool_call_id=result.call_id,
        )
        for result in request.tool_results
    ]
    return ids[-1]


def problem_with(request: TurnRequest, max_chars: int, max_images: int) -> str | None:
    """Why the input cannot be processed, in words for the user; None if it can."""
    if (
        not request.text.strip()
        and not request.images
        and not request.image_urls
        and not request.tool_results
    ):
        return "Your message is empty. Type something or attach an image."
    texts = [("Your message", request.text), ("The system prompt", request.system_prompt)]
    texts += [("A tool result", r.content) for r in request.tool_results]
    for name, text in texts:
        if len(text) > max_chars:
            return (
                f"{name} is too long ({len(text):,} characters; the limit is {max_chars:,}). "
                "Shorten it or split it into parts."
            )
    if (count := len(request.images) + len(request.image_urls)) > max_images:
        return f"Too many images ({count}); at most {max_images} per message."
    return None


def storable_request(request: TurnRequest) -> tuple[TurnRequest, bool]:
    """The request with lone surrogates replaced by U+FFFD in every text it carries (message, history and its
    tool calls, tool results, system prompt, sampling and upstream fields), and whether there were any."""
    storable = replace(
        request,
        text=valid_text(request.text),
        system_prompt=valid_text(request.system_prompt),
        history=tuple(
            replace(m, content=valid_text(m.content), tool_calls=_valid(m.tool_calls))
            for m in request.history
        ),
        tool_results=tuple(replace(r, content=valid_text(r.content)) for r in request.tool_results),
        sampling=_valid(dict(request.sampling)),
        upstream_fields=_valid(dict(request.upstream_fields)),
    )
    garbled = (
        storable.text != request.text
        or storable.system_prompt != request.system_prompt
        or storable.history != tuple(request.history)
        or storable.tool_results != tuple(request.tool_results)
        or storable.sampling != dict(request.sampling)
        or storable.upstream_fields != dict(request.upstream_fields)
    )
    return storable, garbled


def _valid(value: Any) -> Any:
    """``value`` (JSON-shaped) with every string made encodable."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, dict):
        return {_valid(k): _valid(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_valid(v) for v in value)
    return value


def model_read_text(message: ContextMessage) -> str:
    """The text of one message as the model reads it: content, text parts and tool-call arguments."""
    parts = [message.content] if isinstance(message.content, str) else []
    if isinstance(message.content, list):
        parts += [str(p.get("text", "")) for p in message.content if p.get("type") == "text"]
    parts += [json.dumps(call, ensure_ascii=False) for call in message.tool_calls or []]
    return "\n".join(p for p in parts if p)
