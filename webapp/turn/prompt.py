"""What the model reads: stored messages turned into chat messages for the upstream.

Only answered turns and the newest message are sent; past reasoning never is. User text is neutralised so
typed control tokens stay text. Images go as data URLs, or, for a model that cannot see them, as a short
description.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from typing import Any

from webapp.media.describe import describe_image
from webapp.store import MessageInfo
from webapp.turn.context import ContextMessage

# Chat templates are rendered over raw text, so a user typing `<|im_end|>` would inject real control
# tokens. A zero-width space inside such markers keeps the text readable but not parseable as a token.
_SPECIAL_TOKEN = re.compile(
    r"<(?=\|[^<>\s]{1,40}\|>)|<(?=｜[^<>\s]{1,40}｜>)|<(?=/?(?:s|image|fake_token_around_image|end_of_utterance"
    r"|global-img|row_\d+_col_\d+)>)|\[(?=/?INST\])"
)
_ZWSP = "\u200b"


def neutralise_special_tokens(text: str) -> str:
    return _SPECIAL_TOKEN.sub(lambda m: m.group(0) + _ZWSP, text)


def to_context_messages(history: Sequence[MessageInfo], images: bool = True) -> list[ContextMessage]:
    """Stored messages -> what the model may see: answered exchanges and the newest input, no reasoning.

    An exchange is an input (a user message, or the tool results answering the model's calls) and the answers
    that followed it. One whose answer failed, was blocked or interrupted is not sent again; neither is a
    rejected message, nor tool results whose call is not sent. The newest input is the one being answered, so
    none of its earlier answers is sent (Retry answers it again); of an older exchange answered more than once,
    the newest complete answer is sent.
    """
    usable: list[ContextMessage] = []
    exchanges = _exchanges(history)
    for number, (inputs, answers) in enumerate(exchanges, start=1):
        newest = number == len(exchanges)
        answer = None if newest else next((a for a in reversed(answers) if a.status == "complete"), None)
        if any(m.status != "complete" for m in inputs) or (answer is None and not newest):
            continue
        if inputs[0].role == "tool" and not (usable and usable[-1].tool_calls):
            continue
        usable += [_input_message(m, images) for m in inputs]
        if answer is not None:
            usable.append(_assistant_message(answer))
    return usable


def _exchanges(history: Sequence[MessageInfo]) -> list[tuple[list[MessageInfo], list[MessageInfo]]]:
    """Each input with the answers that followed it; the results of several calls form one input."""
    exchanges: list[tuple[list[MessageInfo], list[MessageInfo]]] = []
    for message in history:
        if message.role in ("user", "tool"):
            last = exchanges[-1] if exchanges else None
            if message.role == "tool" and last is not None and not last[1] and last[0][-1].role == "tool":
                last[0].append(message)
            else:
                exchanges.append(([message], []))
        elif message.role == "assistant" and exchanges:
            exchanges[-1][1].append(message)
    return exchanges


def _input_message(message: MessageInfo, images: bool) -> ContextMessage:
    if message.role == "tool":
        result = neutralise_special_tokens(message.content)
        call_id = neutralise_special_tokens(message.tool_call_id or "")
        return ContextMessage(message.id, "tool", result, tool_call_id=call_id)
    content = _user_content(message) if images else _described_content(message)
    sizes = tuple((a.width, a.height) for a in message.attachments if a.data and not a.error)
    return ContextMessage(message.id, "user", content, image_sizes=sizes if images else ())


def _assistant_message(message: MessageInfo) -> ContextMessage:
    calls = [_neutralised_call(c) for c in message.tool_calls or ()] or None
    return ContextMessage(
        message.id, "assistant", neutralise_special_tokens(message.content), tool_calls=calls
    )


def _neutralised_call(call: dict[str, Any]) -> dict[str, Any]:
    """A stored call as the chat template renders it: typed control tokens in it stay text."""
    function = call.get("function") or {}
    return {
        "id": neutralise_special_tokens(str(call.get("id", ""))),
        "type": "function",
        "function": {
            "name": neutralise_special_tokens(str(function.get("name", ""))),
            "arguments": neutralise_special_tokens(str(function.get("arguments", ""))),
        },
    }


def _user_content(message: MessageInfo) -> str | list[dict[str, Any]]:
    text = neutralise_special_tokens(message.content)
    images = [a for a in message.attachments if a.data and not a.error]
    if not images:
        return text
    parts: list[dict[str, Any]] = [
        {"type": "image_url", "image_url": {"url": _data_url(a.mime, a.data)}} for a in images
    ]
    if text:
        parts.append({"type": "text", "text": text})
    return parts


def _described_content(message: MessageInfo) -> str:
    """For a text-only model: the text, then a description of each image the user attached."""
    usable = [a for a in message.attachments if a.data and not a.error]
    descriptions = [describe_image(a.data, f"image {n}").text for n, a in enumerate(usable, start=1)]
    return "\n".join([neutralise_special_tokens(message.content), *descriptions]).strip()


def _data_url(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def neutralise_tools(tools: Any) -> Any:
    """A client's tool definitions as the chat template renders them (descriptions, parameter docs): typed
    control tokens in any string stay text."""
    if isinstance(tools, str):
        return neutralise_special_tokens(tools)
    if isinstance(tools, list):
        return [neutralise_tools(item) for item in tools]
    if isinstance(tools, dict):
        return {key: neutralise_tools(value) for key, value in tools.items()}
    return tools
