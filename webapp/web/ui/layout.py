"""The chat page's components: a collapsible sidebar (new chat, search, your chats, rename, delete, mode)
and the chat column (notice, chat, one input with a Send/Stop button, retry, context meter).

Only layout lives here; what the components do is wired in ``handlers``. The sidebar is Gradio's own: at
phone width it folds away behind its toggle (closed on load there, see ``CLOSE_SIDEBAR_ON_PHONES``).
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

import gradio as gr

from webapp.upstream.profiles import Profile

THINKING, INSTANT = "Thinking", "Instant"
NO_THINKING_REASON = "The served model does not reason; Thinking is unavailable."
# What the image step decodes (PNG, JPEG, WebP, GIF, AVIF; HEIC/HEIF through pillow-heif); the browser's
# file picker offers only these.
IMAGE_SUFFIXES = [".png", ".jpg", ".jpeg", ".webp", ".gif", ".avif", ".heic", ".heif"]
PHONE_MAX_WIDTH = 768  # Gradio's own breakpoint for its sidebar

# Runs in the browser when the page loads: on a phone the chat comes first, the sidebar waits behind its
# toggle. Keeps the open chat's id in the address bar (replaceState: no extra history entries).
CLOSE_SIDEBAR_ON_PHONES = f"""() => {{
  if (window.innerWidth <= {PHONE_MAX_WIDTH}) {{
    const sidebar = document.querySelector('#sidebar.open');
    sidebar?.querySelector('button')?.click();
  }}
}}"""
# Gradio labels each message with its raw value ("bot's message: <p>Three tips:</p><ol>..."), and our values are
# HTML: a screen reader would spell out tags and character references. Each label is rewritten to the text the
# message shows, again whenever Gradio sets it (each streamed update). Gradio's sanitizer also drops the
# aria-hidden of a copy button's source text (the message's markdown, out of sight), which a screen reader
# would then read as a second copy of the message: it is put back. A message of images alone is labelled as such.
PLAIN_MESSAGE_LABELS = """() => {
  const plain = (node) => {
    const label = node.getAttribute('aria-label') || '';
    const cut = label.indexOf("'s message: ");
    if (cut < 0) { return; }
    const shown = document.createTreeWalker(node, NodeFilter.SHOW_TEXT, {acceptNode: (t) =>
      t.parentElement.closest('.copy-source, button') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
    let text = '';
    while (shown.nextNode()) { text += shown.currentNode.data; }
    text = text.replace(/\\s+/g, ' ').trim();
    if (!text) {  // a message of images only: say so rather than read an empty message
      const images = node.querySelectorAll('img').length;
      text = images === 1 ? 'an image' : images > 1 ? images + ' images' : '';
    }
    const wanted = label.slice(0, cut) + "'s message: " + text;
    if (label !== wanted) { node.setAttribute('aria-label', wanted); }
  };
  const sweep = () => {
    document.querySelectorAll('#chatbot [aria-label]').forEach(plain);
    document.querySelectorAll('#chatbot .copy-source:not([aria-hidden])')
      .forEach((node) => node.setAttribute('aria-hidden', 'true'));
  };
  // Gradio sets a message's aria-label whenever its value changes and replaces its nodes when it renders, so
  // attribute and childList records see every update; in-place text edits elsewhere need no sweep.
  new MutationObserver(sweep).observe(document.body, {
    subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label'],
  });
  sweep();
}"""
# What runs in the browser once the page has loaded (one load event, so the app's event indices stay put).
ON_PAGE_LOAD = f"""() => {{
  ({CLOSE_SIDEBAR_ON_PHONES})();
  ({PLAIN_MESSAGE_LABELS})();
}}"""
# The page's own address is only known in the browser: hand its chat id to the load event (owner-checked there).
READ_CHAT_FROM_URL = """(ignored) => new URLSearchParams(window.location.search).get('chat') || ''"""
SHOW_CHAT_IN_URL = """(id) => {
  const url = new URL(window.location.href);
  if (id) { url.searchParams.set('chat', id); } else { url.searchParams.delete('chat'); }
  if (url.href !== window.location.href) { window.history.replaceState(null, '', url); }
}"""


@dataclass(frozen=True)
class ChatLayout:
    """The components handlers read and write."""

    state: gr.State
    chat_id: gr.Textbox  # hidden: the open chat's id, mirrored into the URL
    new: gr.Button
    search: gr.Textbox
    sessions: gr.Radio
    title: gr.Textbox
    delete: gr.Button
    undo: gr.Button
    mode: gr.Radio
    notice: gr.HTML
    chatbot: gr.Chatbot
    box: gr.MultimodalTextbox
    retry: gr.Button
    meter: gr.Markdown


def build_chat_layout(profile: Profile, *, tabbed: bool = False) -> ChatLayout:
    """Create the chat page's components inside the current Blocks context."""
    state = gr.State(None)
    chat_id = gr.Textbox("", visible=False, elem_id="chat-id")
    with gr.Sidebar(open=True, elem_id="sidebar", width=300):
        new = gr.Button("+ New chat", elem_id="new-chat", variant="primary", size="sm")
        search = gr.Textbox(
            placeholder="Search chats", show_label=False, elem_id="search", container=False, max_lines=1
        )
        sessions = gr.Radio([], value=None, label="Your chats", elem_id="sessions", interactive=True)
        title = gr.Textbox(label="Title of this chat", elem_id="title", max_lines=1, interactive=True)
        with gr.Row():
            delete = gr.Button("Delete this chat", elem_id="delete-chat", size="sm", variant="stop")
            undo = gr.Button("Undo delete", elem_id="undo-delete", size="sm", visible=False)
        mode = gr.Radio(
            [INSTANT, THINKING],
            value=THINKING if profile.can_think else INSTANT,
            label="Mode",
            interactive=profile.can_think,
            info=None if profile.can_think else NO_THINKING_REASON,
            elem_id="mode",
        )
    main: AbstractContextManager[object] = gr.Tab("Chat", id="chat") if tabbed else nullcontext()
    with main:
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
            submit_btn=True,
            stop_btn=False,  # one button: Send while idle, Stop while an answer streams
            show_label=False,
        )
        with gr.Row(elem_id="below-input"):
            retry = gr.Button("↻ Retry", elem_id="retry", size="sm", scale=0, min_width=90)
            meter = gr.Markdown("", elem_id="context-meter")
    return ChatLayout(
        state,
        chat_id,
        new,
        search,
        sessions,
        title,
        delete,
        undo,
        mode,
        notice,
        chatbot,
        box,
        retry,
        meter,
    )


def _chatbot() -> gr.Chatbot:
    return gr.Chatbot(
        label="Chat",
        show_label=False,
        elem_id="chatbot",
        height="65vh",
        # Messages arrive as finished HTML from ChatMarkdown (links judged by the URL policy); Gradio's
        # sanitizer still runs over it as a second layer.
        render_markdown=False,
        sanitize_html=True,
        # Gradio's own copy buttons would copy the HTML it was given: each message brings its own (render.py).
        buttons=[],
        feedback_options=None,
        placeholder="Ask anything. Links and images pass an allowlist; answers are checked before you see them.",
    )
