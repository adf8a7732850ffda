"""Chatbot messages and HTML snippets: how the chat looks in the browser.

Every text goes through ``ChatMarkdown`` (links the rails would block stay plain text); notices are escaped
text with an inline SVG icon, never markdown, so a host named in a refusal is never a link.
"""

from __future__ import annotations

import html
from typing import Any

from webapp.turn.events import ContextInfo, valid_text
from webapp.turn.sessions import ShownPart
from webapp.web.ui.markdown import COPY_BUTTON, ChatMarkdown

Message = dict[str, Any]

# Icons are SVG drawn by the stylesheet (a CSS mask in currentColor): no emoji font needed, and nothing for
# the browser's HTML sanitizer to strip (it drops an inline <svg>'s viewBox).
ICON_KINDS = ("rail", "error", "stopped", "info", "image")


def icon(kind: str) -> str:
    return f'<span class="icon icon-{kind if kind in ICON_KINDS else "info"}" aria-hidden="true"></span>'


LABELS = {"rail": "Blocked by a safety rail", "error": "Error", "stopped": "Stopped", "info": "Note"}


def notice_html(kind: str, text: str) -> str:
    """A notice: icon, label, escaped text. Used in the chat and for the page's one banner."""
    kind = kind if kind in LABELS else "info"
    return (
        f'<div class="notice notice-{kind}" role="status">{icon(kind)}'
        f'<div class="notice-text"><span class="notice-label">{LABELS[kind]}.</span> {html.escape(text)}</div>'
        "</div>"
    )


def context_meter(info: ContextInfo) -> str:
    """Tokens used of what the conversation may use, and why that is less than the model's window."""
    budget = info.budget or info.max_model_len
    text = f"Context: {'at most ' if info.at_most else ''}{info.tokens:,} / {budget:,} tokens"
    if info.budget is not None and info.budget < info.max_model_len:
        reserve = info.max_model_len - info.budget
        text += f" (the model's {info.max_model_len:,}-token window less {reserve:,} kept for the answer)"
    if info.dropped:
        text += f" · {info.dropped} earlier message{'s' if info.dropped != 1 else ''} not sent"
    return text


class ChatPainter:
    """Builds Chatbot messages; the one place chat text becomes HTML."""

    def __init__(self, markdown: ChatMarkdown) -> None:
        self.markdown = markdown

    def text(self, role: str, text: str, *, settled: bool = True) -> Message:
        """A message; one still streaming has no copy button yet (see `copyable`), and its last paragraph
        is left open so that Gradio can send its growth as an append (``ChatMarkdown.render_growing``)."""
        return {
            "role": role,
            "content": self.copyable(text) if settled else self.markdown.render_growing(text),
        }

    def copyable(self, text: str) -> str:
        """The text as HTML, with a copy button that copies the text itself (the markdown as it passed the
        rails), not the HTML the Chatbot holds. Gradio's click handler for ``copy_code_button`` copies its
        parent's rendered text: the source sits there, escaped, rendered but out of sight and hidden from
        screen readers (they read the message itself; Gradio's sanitizer drops ``aria-hidden``, the page's
        ``PLAIN_MESSAGE_LABELS`` script puts it back). The source doubles a message's size, and a streaming
        message is sent whole again for every word, so it is added once the message is settled."""
        source = f'<span class="copy-source" aria-hidden="true">{html.escape(text)}</span>'
        return f'{self.markdown.render(text)}<div class="message-copy">{COPY_BUTTON}{source}</div>'

    def notice(self, kind: str, text: str) -> Message:
        return {"role": "assistant", "content": notice_html(kind, text)}

    def image(self, label: str) -> Message:
        return {
            "role": "user",
            "content": f'<span class="image-chip">{icon("image")} image ({html.escape(label)})</span>',
        }

    def reasoning(self, text: str, *, title: str, done: bool, seconds: float | None = None) -> Message:
        metadata: dict[str, Any] = {"title": title, "status": "done" if done else "pending"}
        if seconds is not None:
            metadata["duration"] = round(seconds, 1)
        return {**self.text("assistant", text, settled=done), "metadata": metadata}

    def user_turn(self, text: str, files: list[str]) -> list[Message]:
        """What the user just sent: their images (as files) and their text."""
        messages: list[Message] = [{"role": "user", "content": {"path": path}} for path in files]
        if text:
            messages.append(self.text("user", valid_text(text)))  # the pipeline says what was wrong
        return messages

    def stored(self, parts: list[ShownPart]) -> list[Message]:
        """A stored chat as its owner saw it: refusals instead of blocked text, reasoning collapsed."""
        history: list[Message] = []
        for part in parts:
            history.extend(self._part(part))
        return history

    def _part(self, part: ShownPart) -> list[Message]:
        if part.kind == "image":
            return [self.image(part.text)]
        if part.kind != "text":
            return [self.notice(part.kind, part.text)]
        out: list[Message] = []
        if part.reasoning:
            out.append(self.reasoning(part.reasoning, title="Thought", done=True))
        if part.text:
            out.append(self.text(part.role, part.text))
        return out


def thought_title(seconds: float) -> str:
    return f"Thought for {seconds:.1f} s" if seconds < 10 else f"Thought for {seconds:.0f} s"


def header_html(title: str, model: str, profile: str) -> str:
    return (
        f'<div id="header"><h2>{html.escape(title)}</h2><span>model <code>{html.escape(model)}</code> · '
        f"profile <code>{html.escape(profile)}</code> · guarded by NeMo Guardrails</span></div>"
    )
