"""The Gradio chat UI: a thin adapter that turns ChatService events into Chatbot messages.

Handlers are plain (async) methods on `ChatUI` so tests can drive them without a browser.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from webapp.store import MessageInfo
from webapp.turn.events import (
    AnswerDelta,
    ContextInfo,
    ImageInput,
    InputError,
    Notice,
    ReasoningDelta,
    Retract,
    SessionReady,
    TurnDone,
    TurnRequest,
)
from webapp.turn.service import ChatService
from webapp.upstream.profiles import Mode

ASSETS = Path(__file__).resolve().parents[2] / "assets"
THINKING, INSTANT = "Thinking", "Instant"
NO_THINKING_REASON = "The served model does not reason; Thinking is unavailable."
IMAGE_SUFFIXES = [".png", ".jpg", ".jpeg", ".webp", ".gif", ".heic", ".heif"]

Message = dict[str, Any]


@dataclass
class UIState:
    """Per-browser-tab state: the owner id (anonymous, per browser) and the current session."""

    owner: str = ""
    session_id: str | None = None
    last_text: str = ""
    last_files: tuple[str, ...] = ()


@dataclass(frozen=True)
class TurnView:
    """One streaming update for the UI: the chat history, the notice banner and the context meter."""

    history: list[Message]
    notice: str
    meter: str


class ChatUI:
    def __init__(
        self,
        service: ChatService,
        *,
        title: str = "railchat",
        concurrency: int = 16,
        queue_size: int = 64,
        browser_secret: str | None = None,
    ) -> None:
        self.service = service
        self.title = title
        # Encrypts the owner id kept in each browser; stable across restarts so visitors keep their chats.
        self.browser_secret = browser_secret
        # Gradio runs one event at a time by default: one chatter would make everyone else wait.
        self.concurrency = concurrency
        self.queue_size = queue_size

    # -- handlers (no Gradio types in or out, so tests can call them directly) ---------------------------

    async def turn(
        self, text: str, files: list[str], history: list[Message], state: UIState, mode: str
    ) -> AsyncIterator[TurnView]:
        state.owner = state.owner or new_owner_id()
        state.last_text, state.last_files = text, tuple(files)
        history = [*history, *user_messages(text, files)]
        request = TurnRequest(
            owner=state.owner,
            text=text,
            client="ui",
            session_id=state.session_id,
            images=read_files(files),
            mode=self._mode(mode),
        )
        meter = ""
        banner = ""  # a non-fatal notice shown above the chat for the rest of the turn
        thought: Message | None = None
        thinking_since = time.monotonic()
        answer: Message | None = None
        try:
            async for event in self.service.run_turn(request):
                if isinstance(event, SessionReady):
                    state.session_id = event.session_id
                elif isinstance(event, ContextInfo):
                    meter = context_meter(event)
                elif isinstance(event, Notice):
                    banner = notice_html("info", event.message)
                elif isinstance(event, ReasoningDelta):
                    if thought is None:
                        thought, thinking_since = thinking_message(), time.monotonic()
                        history.append(thought)
                    thought["content"] += event.text
                elif isinstance(event, AnswerDelta):
                    if answer is None:
                        answer = {"role": "assistant", "content": ""}
                        history.append(answer)
                    answer["content"] += event.text
                elif isinstance(event, Retract):
                    history = [m for m in history if m is not thought and m is not answer]
                    thought = answer = None
                elif isinstance(event, TurnDone):
                    close_thinking(thought, event, thinking_since)
                    if event.status != "complete":
                        history.append(done_message(event))
                    yield TurnView(history, notice_for(event) or banner, meter)
                    return
                yield TurnView(history, banner, meter)
        except InputError as exc:
            history.append(notice_message("error", str(exc)))
            yield TurnView(history, notice_html("error", str(exc)), meter)

    def _mode(self, mode: str) -> Mode:
        return "thinking" if mode == THINKING and self.service.profile.can_think else "instant"

    # -- sessions: list, resume, delete (owner-scoped; the store is the single source) ------------------

    def session_choices(self, owner: str) -> list[tuple[str, str]]:
        if not owner:
            return []
        sessions = self.service.store.list_sessions(owner=owner, limit=50)
        return [(f"{(s.title or 'Untitled')[:48]} · {s.updated_at:%b %d %H:%M}", s.id) for s in sessions]

    def resume(self, session_id: str, state: UIState) -> list[Message]:
        info = self.service.store.get_session(session_id)
        if info is None or info.owner != state.owner or info.deleted_at is not None:
            return []
        state.session_id = session_id
        return history_from_store(self.service.store.messages(session_id))

    def delete(self, state: UIState) -> bool:
        if not state.session_id:
            return False
        deleted = self.service.store.soft_delete(state.session_id, owner=state.owner)
        state.session_id = None
        return deleted

    # -- Gradio wiring --------------------------------------------------------------------------------------

    def build(self) -> gr.Blocks:
        profile = self.service.profile
        with gr.Blocks(title=self.title) as demo:
            state = gr.State(None)
            # An anonymous owner id per browser (localStorage), so a visitor finds their chats again
            # after a reload and never sees anyone else's.
            owner = gr.BrowserState("", storage_key="railchat-owner", secret=self.browser_secret)
            gr.HTML(header_html(self.title, self.service.served_model, profile.name))
            with gr.Row():
                with gr.Column(scale=1, min_width=220, elem_id="sidebar"):
                    new = gr.Button("+ New chat", elem_id="new-chat", variant="primary", size="sm")
                    sessions = gr.Dropdown(
                        [], value=None, label="Your chats", elem_id="sessions", interactive=True
                    )
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
                    chatbot = gr.Chatbot(
                        label="Chat",
                        elem_id="chatbot",
                        height=560,
                        sanitize_html=True,
                        allow_tags=False,
                        buttons=["copy"],
                        render_markdown=True,
                        feedback_options=None,
                        placeholder="Ask anything. Links and images pass an allowlist; answers are checked "
                        "before you see them.",
                    )
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

            def current(st: UIState | None, who: str, request: gr.Request | None = None) -> UIState:
                st = st if isinstance(st, UIState) else UIState()
                st.owner = owner_id(request, st.owner or who)
                return st

            def on_load(who: str, request: gr.Request):
                who = owner_id(request, who)
                return who, UIState(owner=who), gr.update(choices=self.session_choices(who), value=None)

            async def on_submit(
                message: dict[str, Any],
                history: list[Message],
                st: UIState | None,
                who: str,
                md: str,
                request: gr.Request,
            ):
                st = current(st, who, request)
                files = [f if isinstance(f, str) else f.get("path", "") for f in message.get("files", [])]
                yield gr.update(value=None, interactive=False), history, st, "", gr.update(), gr.update()
                async for view in self.turn(message.get("text", "") or "", files, history, st, md):
                    yield gr.update(), view.history, st, view.notice, view.meter, gr.update()
                yield (
                    gr.update(value=None, interactive=True),
                    gr.update(),
                    st,
                    gr.update(),
                    gr.update(),
                    gr.update(choices=self.session_choices(st.owner), value=st.session_id),
                )

            async def on_retry(
                history: list[Message], st: UIState | None, who: str, md: str, request: gr.Request
            ):
                st = current(st, who, request)
                if not st.last_text and not st.last_files:
                    yield history, st, notice_html("error", "Nothing to retry yet."), gr.update()
                    return
                async for view in self.turn(st.last_text, list(st.last_files), history, st, md):
                    yield view.history, st, view.notice, view.meter

            def on_pick(session_id: str | None, st: UIState | None, who: str, request: gr.Request):
                st = current(st, who, request)
                if not session_id or session_id == st.session_id:
                    return gr.update(), st, gr.update()
                return self.resume(session_id, st), st, ""

            def on_new(st: UIState | None, who: str, request: gr.Request):
                st = current(st, who, request)
                return [], UIState(owner=st.owner), "", "", gr.update(value=None)

            def on_delete(st: UIState | None, who: str, request: gr.Request):
                st = current(st, who, request)
                deleted = self.delete(st)
                message = "Chat deleted." if deleted else "Nothing to delete yet."
                return (
                    [],
                    st,
                    notice_html("info", message),
                    "",
                    gr.update(choices=self.session_choices(st.owner), value=None),
                )

            demo.load(on_load, [owner], [owner, state, sessions])
            submit = box.submit(
                on_submit, [box, chatbot, state, owner, mode], [box, chatbot, state, notice, meter, sessions]
            )

            def on_stop(st: UIState | None, who: str, request: gr.Request):
                st = current(st, who, request)
                return (
                    gr.update(interactive=True),
                    notice_html("stopped", "Stopped. What was shown is kept."),
                    gr.update(choices=self.session_choices(st.owner), value=st.session_id),
                )

            box.stop(on_stop, [state, owner], [box, notice, sessions], cancels=[submit])
            retry.click(on_retry, [chatbot, state, owner, mode], [chatbot, state, notice, meter])
            sessions.input(on_pick, [sessions, state, owner], [chatbot, state, notice])
            new.click(on_new, [state, owner], [chatbot, state, notice, meter, sessions])
            chatbot.clear(
                on_new, [state, owner], [chatbot, state, notice, meter, sessions]
            )  # its bin: a new chat
            delete.click(on_delete, [state, owner], [chatbot, state, notice, meter, sessions])
        demo.queue(default_concurrency_limit=self.concurrency, max_size=self.queue_size, api_open=False)
        return demo


# ---- small pure helpers, tested directly -------------------------------------------------------------------


def new_owner_id() -> str:
    return "browser:" + secrets.token_urlsafe(12)


def owner_id(request: Any, browser_id: str) -> str:
    """A signed-in user owns their chats by name; an anonymous visitor by a random id kept in the browser."""
    username = getattr(request, "username", None) if request is not None else None
    if username:
        return f"user:{username}"
    return browser_id if browser_id.startswith("browser:") else new_owner_id()


def read_files(paths: list[str]) -> list[ImageInput]:
    # A file that vanished from Gradio's cache reads as empty: the image step then reports it by name.
    images = []
    for path in paths:
        try:
            data = Path(path).read_bytes()
        except OSError:
            data = b""
        images.append(ImageInput(data, name=Path(path).name))
    return images


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
    icon = {"rail": "🛡️", "error": "⚠️", "stopped": "⏹️"}.get(kind, "ℹ️")
    return {"role": "assistant", "content": f"{icon} {text}"}


def done_message(done: TurnDone) -> Message:
    return notice_message(done.kind, done.message or "The answer was stopped.")


def notice_html(kind: str, text: str) -> str:
    import html

    label = {"rail": "Blocked by a safety rail", "error": "Error", "stopped": "Stopped"}.get(kind, "Notice")
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


def history_from_store(messages: list[MessageInfo]) -> list[Message]:
    """A stored session as the chatter saw it: refusals instead of blocked text, reasoning collapsed."""
    history: list[Message] = []
    for m in messages:
        if m.role == "user":
            for a in m.attachments:
                label = f"{a.width}x{a.height}" if not a.error else f"not sent: {a.error}"
                history.append({"role": "user", "content": f"🖼️ image ({label})"})
            if m.content:
                history.append({"role": "user", "content": m.content})
        elif m.role == "assistant":
            history.extend(_stored_answer(m))
    return history


def _stored_answer(m: MessageInfo) -> list[Message]:
    if m.status == "blocked":
        # The blocked text itself is for reviewers only; the chatter sees the refusal again.
        return [
            notice_message("rail", f"Sorry, I can't help with that: {m.error or 'a safety rail blocked it'}.")
        ]
    if m.status == "error":
        return [notice_message("error", m.error or "This answer failed.")]
    out: list[Message] = []
    if m.reasoning:
        out.append(
            {"role": "assistant", "content": m.reasoning, "metadata": {"title": "Thought", "status": "done"}}
        )
    if m.content:
        out.append({"role": "assistant", "content": m.content})
    if m.status == "interrupted":
        out.append(notice_message("stopped", "This answer was interrupted."))
    return out


def header_html(title: str, model: str, profile: str) -> str:
    import html

    return (
        f'<div id="header"><h2>{html.escape(title)}</h2><span>model <code>{html.escape(model)}</code> · '
        f"profile <code>{html.escape(profile)}</code> · guarded by NeMo Guardrails</span></div>"
    )
