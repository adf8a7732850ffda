"""The Gradio chat UI: a thin adapter that turns ChatService events into Chatbot messages.

``ChatUI`` holds the operations (a turn, the owner's session list, reopen, delete) with no Gradio types in or
out, so tests drive them without a browser; ``handlers`` adapts them to Gradio events and ``layout`` places
the components. Stored sessions are reached through ``ChatService.sessions``, which owns the owner check.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import gradio as gr

from webapp.turn.events import InputError, TurnRequest
from webapp.turn.service import ChatService
from webapp.upstream.profiles import Mode
from webapp.web.ui.layout import THINKING, build_chat_layout
from webapp.web.ui.render import (
    Message,
    header_html,
    history_from_parts,
    notice_html,
    notice_message,
    user_messages,
)
from webapp.web.ui.state import UIState, new_owner_id, read_files
from webapp.web.ui.stream import TurnRenderer, TurnView
from webapp.web.ui.tabs import ExtraTab
from webapp.web.uploads import is_upload


class ChatUI:
    def __init__(
        self,
        service: ChatService,
        *,
        title: str = "railchat",
        concurrency: int = 16,
        queue_size: int = 64,
        browser_secret: str | None = None,
        extra_tabs: Sequence[ExtraTab] = (),
        upload_dir: Path | None = None,
    ) -> None:
        self.service = service
        # Files a browser may name in an event: only uploads in this folder (see webapp/web/uploads.py).
        self.upload_dir = upload_dir
        self.title = title
        # Encrypts the owner id kept in each browser; stable across restarts so visitors keep their chats.
        self.browser_secret = browser_secret
        # Gradio runs one event at a time by default: one chatter would make everyone else wait.
        self.concurrency = concurrency
        self.queue_size = queue_size
        self.extra_tabs = tuple(extra_tabs)

    # -- operations (no Gradio types in or out) ---------------------------------------------------------

    async def turn(
        self, text: str, files: list[str], history: list[Message], state: UIState, mode: str
    ) -> AsyncIterator[TurnView]:
        state.owner = state.owner or new_owner_id()
        state.last_text, state.last_files = text, tuple(files)
        renderer = TurnRenderer(state, [*history, *user_messages(text, files)])
        request = TurnRequest(
            owner=state.owner,
            text=text,
            client="ui",
            session_id=state.session_id,
            images=read_files(files),
            mode=self.mode_of(mode),
        )
        try:
            async for event in self.service.run_turn(request):
                final = renderer.apply(event)
                yield final or renderer.view()
                if final is not None:
                    return
        except InputError as exc:
            renderer.history.append(notice_message("error", str(exc)))
            yield renderer.view(notice_html("error", str(exc)))

    async def browser_turn(
        self, text: str, files: list[str], state: UIState, mode: str
    ) -> AsyncIterator[TurnView]:
        """A turn from an event payload: history from the store (the client's Chatbot value can name files),
        files only if they were uploaded to this app."""
        history = self.stored_history(state)
        upload_dir = self.upload_dir
        if files and (upload_dir is None or not all(is_upload(f, upload_dir) for f in files)):
            yield TurnView(history, notice_html("error", "Files must be uploaded through this page."), "")
            return
        async for view in self.turn(text, files, history, state, mode):
            yield view

    def stored_history(self, state: UIState) -> list[Message]:
        parts = self.service.sessions.transcript(state.owner, state.session_id) if state.session_id else None
        return history_from_parts(parts) if parts else []

    def mode_of(self, mode: str) -> Mode:
        return "thinking" if mode == THINKING and self.service.profile.can_think else "instant"

    def session_choices(self, owner: str) -> list[tuple[str, str]]:
        sessions = self.service.sessions.recent(owner)
        return [(f"{(s.title or 'Untitled')[:48]} · {s.updated_at:%b %d %H:%M}", s.id) for s in sessions]

    def resume(self, session_id: str, state: UIState) -> list[Message]:
        parts = self.service.sessions.transcript(state.owner, session_id)
        if parts is None:
            return []
        state.session_id = session_id
        return history_from_parts(parts)

    def delete(self, state: UIState) -> bool:
        deleted = self.service.sessions.delete(state.owner, state.session_id)
        state.session_id = None
        return deleted

    # -- Gradio ---------------------------------------------------------------------------------------------

    def build(self) -> gr.Blocks:
        from webapp.web.ui.handlers import ChatHandlers

        profile = self.service.profile
        with gr.Blocks(title=self.title) as demo:
            gr.HTML(header_html(self.title, self.service.served_model, profile.name))
            if self.extra_tabs:
                with gr.Tabs():
                    with gr.Tab("Chat", id="chat"):
                        layout = build_chat_layout(profile, browser_secret=self.browser_secret)
                    tabs = [tab.build() for tab in self.extra_tabs]
            else:
                layout, tabs = build_chat_layout(profile, browser_secret=self.browser_secret), []
            ChatHandlers(self, layout).wire(demo, list(zip(self.extra_tabs, tabs, strict=True)))
        demo.queue(default_concurrency_limit=self.concurrency, max_size=self.queue_size, api_open=False)
        return demo
