"""Chatbot messages and HTML snippets: how pipeline events and stored chats look in the browser.

Pure functions over plain values, so they are tested without Gradio.
"""

from __future__ import annotations

import html
import secrets
import time
from typing import Any

from webapp.turn.events import ContextInfo, TurnDone
from webapp.turn.sessions import ShownPart

Message = dict[str, Any]

NOTICE_ICONS = {"rail": "🛡️", "error": "⚠️", "stopped": "⏹️"}
NOTICE_LABELS = {"rail": "Blocked by a safety rail", "error": "Error", "stopped": "Stopped"}


def user_messages(text: str, files: list[str]) -> list[Message]:
    messages: list[Message] = [{"role": "user", "content": {"path": path}} for path in files]
    if text or not files:
        messages.append({"role": "user", "content": text})
    return messages


def thinking_message() -> Message:
    return {
        "role": "assistant",
        "content": "",
        "metadata": {"title": "Thinking…", "status": "pending", "id": "thinking-" + secrets.token_hex(4)},
    }


def close_thinking(thought: Message | None, done: TurnDone, since: float) -> None:
    """Collapse the reasoning panel and title it with how long the model thought."""
    if thought is None:
        return
    seconds = done.reasoning_s if done.reasoning_s is not None else time.monotonic() - since
    title = f"Thought for {seconds:.1f} s" if seconds < 10 else f"Thought for {seconds:.0f} s"
    thought["metadata"] = {
        **thought["metadata"],
        "title": title,
        "status": "done",
        "duration": round(seconds, 1),
    }


def notice_message(kind: str, text: str) -> Message:
    icon = NOTICE_ICONS.get(kind, "ℹ️")
    return {"role": "assistant", "content": f"{icon} {text}"}


def done_message(done: TurnDone) -> Message:
    return notice_message(done.kind, done.message or "The answer was stopped.")


def notice_html(kind: str, text: str) -> str:
    label = NOTICE_LABELS.get(kind, "Notice")
    return (
        f'<div class="notice notice-{kind}" role="status"><strong>{label}:</strong> {html.escape(text)}</div>'
    )


def notice_for(done: TurnDone) -> str:
    return (
        "" if done.status == "complete" else notice_html(done.kind, done.message or "The answer was stopped.")
    )


def context_meter(info: ContextInfo) -> str:
    text = f"Context: {info.tokens:,} / {info.max_model_len:,} tokens"
    if info.dropped:
        text += f" · {info.dropped} earlier message{'s' if info.dropped != 1 else ''} not sent"
    return text


def history_from_parts(parts: list[ShownPart]) -> list[Message]:
    """A stored chat as its owner saw it: refusals instead of blocked text, reasoning collapsed."""
    history: list[Message] = []
    for part in parts:
        history.extend(_messages_of(part))
    return history


def _messages_of(part: ShownPart) -> list[Message]:
    if part.kind == "image":
        return [{"role": "user", "content": f"🖼️ image ({part.text})"}]
    if part.kind != "text":
        return [notice_message(part.kind, part.text)]
    out: list[Message] = []
    if part.reasoning:
        out.append(
            {
                "role": "assistant",
                "content": part.reasoning,
                "metadata": {"title": "Thought", "status": "done"},
            }
        )
    if part.text:
        out.append({"role": part.role, "content": part.text})
    return out


def header_html(title: str, model: str, profile: str) -> str:
    return (
        f'<div id="header"><h2>{html.escape(title)}</h2><span>model <code>{html.escape(model)}</code> · '
        f"profile <code>{html.escape(profile)}</code> · guarded by NeMo Guardrails</span></div>"
    )
