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
    """Stored messages -> what the model may see: answered turns and the newest message, no reasoning.

    A turn whose answer failed, was blocked or interrupted is not sent again; neither is a rejected message.
    The newest message is the one being answered, so none of its earlier answers is sent (Retry answers it
    again); of an older turn answered more than once, the newest complete answer is sent.
    """
    usable: list[ContextMessage] = []
    turns = _turns(history)
    for number, (user, answers) in enumerate(turns, start=1):
        newest = number == len(turns)
        answer = None if newest else next((a for a in reversed(answers) if a.status == "complete"), None)
        if user.status != "complete" or (answer is None and not newest):
            continue
        content = _user_content(user) if images else _described_content(user)
        sizes = tuple((a.width, a.height) for a in user.attachments if a.data and not a.error)
        usable.append(ContextMessage(user.id, "user", content, image_sizes=sizes if images else ()))
        if answer is not None:
            usable.append(ContextMessage(answer.id, "assistant", neutralise_special_tokens(answer.content)))
    return usable


def _turns(history: Sequence[MessageInfo]) -> list[tuple[MessageInfo, list[MessageInfo]]]:
    """Each user message with the answers that followed it."""
    turns: list[tuple[MessageInfo, list[MessageInfo]]] = []
    for message in history:
        if message.role == "user":
            turns.append((message, []))
        elif message.role == "assistant" and turns:
            turns[-1][1].append(message)
    return turns


def _has_images(message: MessageInfo) -> bool:
    return any(a.data and not a.error for a in message.attachments)


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
