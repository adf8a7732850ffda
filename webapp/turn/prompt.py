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
    """
    usable: list[ContextMessage] = []
    for index, message in enumerate(history):
        following = history[index + 1] if index + 1 < len(history) else None
        if message.role == "user" and message.status == "complete":
            answered = (
                following is not None and following.role == "assistant" and following.status == "complete"
            )
            if answered or following is None:
                content = _user_content(message) if images else _described_content(message)
                sizes = tuple((a.width, a.height) for a in message.attachments if a.data and not a.error)
                usable.append(
                    ContextMessage(message.id, "user", content, image_sizes=sizes if images else ())
                )
        elif (
            message.role == "assistant"
            and message.status == "complete"
            and usable
            and usable[-1].role == "user"
        ):
            if usable[-1].message_id == history[index - 1].id:
                usable.append(
                    ContextMessage(message.id, "assistant", neutralise_special_tokens(message.content))
                )
    return usable


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
