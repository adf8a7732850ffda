"""The chat page's components: a sidebar (new chat, your chats, mode, context meter) and the chat column.

Only layout lives here; what the components do is wired in ``handlers``.
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from webapp.upstream.profiles import Profile

THINKING, INSTANT = "Thinking", "Instant"
NO_THINKING_REASON = "The served model does not reason; Thinking is unavailable."
IMAGE_SUFFIXES = [".png", ".jpg", ".jpeg", ".webp", ".gif", ".heic", ".heif"]


@dataclass(frozen=True)
class ChatLayout:
    """The components handlers read and write."""

    state: gr.State
    owner: gr.BrowserState
    new: gr.Button
    sessions: gr.Dropdown
    delete: gr.Button
    mode: gr.Radio
    meter: gr.Markdown
    notice: gr.HTML
    chatbot: gr.Chatbot
    box: gr.MultimodalTextbox
    retry: gr.Button


def build_chat_layout(profile: Profile, *, browser_secret: str | None) -> ChatLayout:
    """Create the chat page's components inside the current Blocks context."""
    state = gr.State(None)
    # An anonymous owner id per browser (localStorage), so a visitor finds their chats again after a
    # reload and never sees anyone else's.
    owner = gr.BrowserState("", storage_key="railchat-owner", secret=browser_secret)
    with gr.Row():
        with gr.Column(scale=1, min_width=220, elem_id="sidebar"):
            new = gr.Button("+ New chat", elem_id="new-chat", variant="primary", size="sm")
            sessions = gr.Dropdown([], value=None, label="Your chats", elem_id="sessions", interactive=True)
            delete = gr.Button("Delete this chat", elem_id="delete-chat", size="sm")
            mode = gr.Radio(
                [INSTANT, THINKING],
                value=THINKING if profile.can_think else INSTANT,
                label="Mode",
                interactive=profile.can_think,
                info=None if profile.can_think else NO_THINKING_REASON,
                elem_id="mode",
            )
            meter = gr.Markdown("", elem_id="context-meter")
        with gr.Column(scale=4):
            notice = gr.HTML("", elem_id="notice")
            chatbot = _chatbot()
            box = gr.MultimodalTextbox(
                elem_id="input",
                file_types=IMAGE_SUFFIXES,
                file_count="multiple",
                sources=["upload"],
                placeholder="Type a message, or paste / drop images"
                if profile.images
                else "Type a message (the model is text-only: images are described to it, not shown)",
                stop_btn=True,
                submit_btn=True,
                show_label=False,
            )
            retry = gr.Button("↻ Retry last message", elem_id="retry", size="sm")
    return ChatLayout(state, owner, new, sessions, delete, mode, meter, notice, chatbot, box, retry)


def _chatbot() -> gr.Chatbot:
    return gr.Chatbot(
        label="Chat",
        elem_id="chatbot",
        height=560,
        sanitize_html=True,
        allow_tags=False,
        buttons=["copy"],
        render_markdown=True,
        feedback_options=None,
        placeholder="Ask anything. Links and images pass an allowlist; answers are checked before you see them.",
    )
