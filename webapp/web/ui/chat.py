"""The Gradio chat UI: a thin adapter that turns ChatService events into Chatbot messages.

``ChatUI`` holds the operations (a turn, retry, the owner's chat list, reopen, rename, delete and undo) with
no Gradio types in or out, so tests drive them without a browser; ``handlers`` adapts them to Gradio events
and ``layout`` places the components. Stored chats are reached through ``ChatService.sessions``, which owns
the owner check; the chat shown is always rebuilt from the store, never taken from the browser.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing

import gradio as gr

from webapp.turn.events import AnswerDelta, InputError, ReasoningDelta, TurnEvent, TurnRequest
from webapp.turn.service import ChatService
from webapp.turn.sessions import ShownPart
from webapp.upstream.profiles import Mode
from webapp.web.ui.absent import remember_absent
from webapp.web.ui.layout import THINKING, build_chat_layout
from webapp.web.ui.markdown import ChatMarkdown
from webapp.web.ui.queue import WokenQueue
from webapp.web.ui.render import ChatPainter, Message, header_html
from webapp.web.ui.sessionconfig import no_session_configs
from webapp.web.ui.state import UIState, nobody, read_files
from webapp.web.ui.stream import TurnRenderer, TurnView, ready_batches
from webapp.web.ui.tabs import ExtraTab
from webapp.web.uploads import UploadLedger

LIST_TITLE_CHARS = 60
# Gradio polls for progress to send every 10 ms; progress bars are not used here.
PROGRESS_POLL_S = 0.25
# Events besides the turns that may run at once (a page loading, the chat list, Stop): Gradio's own default.
OTHER_EVENTS = 40


class ChatUI:
    def __init__(
        self,
        service: ChatService,
        *,
        title: str = "railchat",
        concurrency: int = 16,
        queue_size: int = 64,
        repaint_s: float = 0.0,
        extra_tabs: Sequence[ExtraTab] = (),
        uploads: UploadLedger | None = None,
    ) -> None:
        self.service = service
        # Files a browser may name in an event: only its own uploads (webapp/web/uploads.py); none without.
        self.uploads = uploads
        self.title = title
        # Gradio runs one event at a time by default: one chatter would make everyone else wait.
        self.concurrency = concurrency
        self.queue_size = queue_size
        self.repaint_s = repaint_s  # the answer repainted at most this often once shown (ready_batches)
        self.extra_tabs = tuple(extra_tabs)
        self.painter = ChatPainter(ChatMarkdown(service.guard.allows_url))

    # -- turns (no Gradio types in or out) ------------------------------------------------------------------

    async def turn(
        self, text: str, files: list[str], state: UIState, mode: str
    ) -> AsyncGenerator[TurnView, None]:
        state.owner = state.owner or nobody()
        before = [*await self.stored_history_async(state), *self.painter.user_turn(text, files)]
        request = TurnRequest(
            owner=state.owner,
            text=text,
            client="ui",
            session_id=state.session_id,
            images=read_files(files),
            mode=self.mode_of(mode),
        )
        async with aclosing(self._run(request, TurnRenderer(state, self.painter, before))) as views:
            async for view in views:
                yield view

    async def retry(self, state: UIState, mode: str) -> AsyncGenerator[TurnView, None]:
        """Answer the chat's newest message again; the answer it replaces stays stored for reviewers."""
        parts = await asyncio.to_thread(self.service.sessions.transcript, state.owner, state.session_id) or []
        before = self.painter.stored(_without_last_answer(parts))
        request = TurnRequest(
            owner=state.owner,
            text="",
            client="ui",
            session_id=state.session_id,
            mode=self.mode_of(mode),
            retry=True,
        )
        async with aclosing(self._run(request, TurnRenderer(state, self.painter, before))) as views:
            async for view in views:
                yield view

    async def _run(self, request: TurnRequest, renderer: TurnRenderer) -> AsyncGenerator[TurnView, None]:
        try:
            # One view per batch of events that are ready, not per event (see ready_batches).
            batches = ready_batches(self.service.run_turn(request), gap_s=self.repaint_s, shows=_shows)
            shown: list[Message] | None = None
            async with aclosing(batches) as ready:
                async for events in ready:
                    view = renderer.apply(events)
                    # Gradio post-processes, diffs and sends the whole chat per view, changed or not: a batch
                    # that changes nothing shown (the context meter, shown after the turn) is no view.
                    if view.history == shown and not view.done:
                        continue
                    shown = view.history
                    yield view
        except InputError as exc:
            yield renderer.fail(str(exc))

    async def browser_turn(
        self, text: str, files: list[str], state: UIState, mode: str
    ) -> AsyncGenerator[TurnView, None]:
        """A turn from an event payload: files only if the tab's owner uploaded them to this app (an event can
        name any path; see webapp/web/uploads.py)."""
        if files and not all(self._uploaded_by(state.owner, f) for f in files):
            renderer = TurnRenderer(state, self.painter, await self.stored_history_async(state))
            yield renderer.fail("Files must be uploaded through this page.")
            return
        async with aclosing(self.turn(text, files, state, mode)) as views:
            async for view in views:
                yield view

    def _uploaded_by(self, owner: str, path: str) -> bool:
        return self.uploads is not None and self.uploads.owns(owner, path)

    def mode_of(self, mode: str) -> Mode:
        return "thinking" if mode == THINKING and self.service.profile.can_think else "instant"

    # -- the owner's chats --------------------------------------------------------------------------------------

    def stored_history(self, state: UIState) -> list[Message]:
        """The open chat as its owner saw it, from the store; empty for a new chat."""
        parts = self.service.sessions.transcript(state.owner, state.session_id)
        return self.painter.stored(parts or [])

    async def stored_history_async(self, state: UIState) -> list[Message]:
        """`stored_history` off the event loop: a long chat's transcript (images included) read on it would
        stall every other stream."""
        return await asyncio.to_thread(self.stored_history, state) if state.session_id else []

    async def settled_history(
        self, state: UIState, *, timeout_s: float = 5.0, poll_s: float = 0.1
    ) -> list[Message]:
        """The open chat once a stopped answer has been stored with its status (the cancelled turn stores it
        in its clean-up, which may finish after the Stop event starts), so Stop shows what a reload shows."""
        deadline = time.monotonic() + timeout_s
        answering = self.service.sessions.answering
        while time.monotonic() < deadline and await asyncio.to_thread(
            answering, state.owner, state.session_id
        ):
            await asyncio.sleep(poll_s)
        return await self.stored_history_async(state)

    def session_choices(self, owner: str, query: str = "") -> list[tuple[str, str]]:
        sessions = self.service.sessions.recent(owner, query=query)
        return [
            (f"{(s.title or 'Untitled')[:LIST_TITLE_CHARS]} · {s.updated_at:%b %d %H:%M}", s.id)
            for s in sessions
        ]

    def resume(self, session_id: str, state: UIState) -> list[Message] | None:
        """Open one of the owner's chats; None (and nothing changed) if it is not theirs."""
        parts = self.service.sessions.transcript(state.owner, session_id)
        if parts is None:
            return None
        state.session_id = session_id
        return self.painter.stored(parts)

    def title_of(self, state: UIState) -> str:
        info = self.service.sessions.owned(state.owner, state.session_id)
        return (info.title or "") if info else ""

    def rename(self, state: UIState, title: str) -> bool:
        return self.service.sessions.rename(state.owner, state.session_id, title)

    def delete(self, state: UIState) -> str | None:
        """Delete the open chat; its id (for Undo) if it was deleted."""
        deleted = state.session_id if self.service.sessions.delete(state.owner, state.session_id) else None
        state.session_id = None
        return deleted

    def undo_delete(self, state: UIState, session_id: str) -> bool:
        if not self.service.sessions.restore(state.owner, session_id):
            return False
        state.session_id = session_id
        return True

    # -- Gradio ---------------------------------------------------------------------------------------------

    def build(self) -> gr.Blocks:
        from webapp.web.ui.handlers import ChatHandlers

        profile = self.service.profile
        with gr.Blocks(title=self.title) as demo:
            gr.HTML(header_html(self.title, self.service.served_model, profile.name))
            layout = build_chat_layout(profile, tabbed=bool(self.extra_tabs))
            for tab in self.extra_tabs:
                tab.build()
            ChatHandlers(self, layout).wire(demo)
        demo.queue(default_concurrency_limit=self.concurrency, max_size=self.queue_size, api_open=False)
        # Woken by work instead of polling for it (webapp/web/ui/queue.py); Gradio's, not a public setting
        demo._queue = WokenQueue.replacing(demo._queue)
        # Gradio runs at most its thread count of events at once (40 in an app it did not launch), whatever the
        # concurrency limits allow, and a turn is one event for its whole answer: with more turns allowed than
        # that, the rest waited a whole answer to start (at 64 UI streams, the slowest first words ~2.5 s).
        demo._queue.max_thread_count = max(demo._queue.max_thread_count, self.concurrency + OTHER_EVENTS)
        demo._queue.progress_update_sleep_when_free = PROGRESS_POLL_S
        remember_absent()  # Gradio imports these per update (webapp/web/ui/absent.py)
        no_session_configs()  # nothing here reads a session's copy of its block configs (sessionconfig.py)
        return demo


def _shows(event: TurnEvent) -> bool:
    return isinstance(event, AnswerDelta | ReasoningDelta)


def _without_last_answer(parts: list[ShownPart]) -> list[ShownPart]:
    """The chat up to the newest user message: what Retry answers again."""
    last_user = max((n for n, p in enumerate(parts) if p.role == "user"), default=-1)
    return parts[: last_user + 1]
