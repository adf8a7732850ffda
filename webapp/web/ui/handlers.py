"""Gradio events of the chat page, as typed methods over ``ChatUI``'s operations.

Every handler settles the tab's owner first, from the request (signed-in name, else the browser's signed id
from its HttpOnly cookie): nothing in an event's data decides whose chats are read. No handler takes the
Chatbot's value: the chat shown is rebuilt from the store. Each returns the values of the outputs it is wired
to, in that order.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, cast

import gradio as gr

from webapp.web.ui.layout import ON_PAGE_LOAD, READ_CHAT_FROM_URL, SHOW_CHAT_IN_URL, ChatLayout
from webapp.web.ui.queue import closed_with_event
from webapp.web.ui.render import Message, notice_html
from webapp.web.ui.state import UIState, current_state, request_owner

if TYPE_CHECKING:
    from webapp.web.ui.chat import ChatUI

Outputs = tuple[Any, ...]


def text_of(value: object) -> str:
    """A Textbox's value as the page sends it; an event written by hand may send null or a number."""
    return value if isinstance(value, str) else ""


TURNS = "turns"  # the Gradio concurrency id a chat turn's events share
# The input box's empty value as its post-processing makes it: the turn events send their values as they are
# (``postprocess=False``, see ``ChatHandlers.wire``).
EMPTY_BOX: dict[str, Any] = {"text": "", "files": []}


def busy_box(*, clear: bool) -> dict[str, Any]:
    """The input while an answer streams: locked, its one button a Stop button."""
    if clear:
        return gr.update(value=EMPTY_BOX, interactive=False, submit_btn=False, stop_btn=True)
    return gr.update(interactive=False, submit_btn=False, stop_btn=True)


def idle_box() -> dict[str, Any]:
    """The input when idle: open, its one button a Send button."""
    return gr.update(value=None, interactive=True, submit_btn=True, stop_btn=False)


class ChatHandlers:
    def __init__(self, ui: ChatUI, layout: ChatLayout) -> None:
        self.ui = ui
        self.layout = layout

    def _list(self, owner: str, value: str | None, query: str = "") -> dict[str, Any]:
        choices = self.ui.session_choices(owner, query)
        # Gradio refuses a value that is not among the choices (e.g. the open chat filtered out by a search).
        return gr.update(choices=choices, value=value if any(id_ == value for _, id_ in choices) else None)

    def _opened(self, st: UIState) -> Outputs:
        """Sidebar values for the open chat: list selection, title, chat id (mirrored into the URL)."""
        return self._list(st.owner, st.session_id), self.ui.title_of(st), st.session_id or ""

    # -- page and chat list ------------------------------------------------------------------------------

    def on_load(self, wanted: str, request: gr.Request) -> Outputs:
        """Reopen the chat named in the URL (``/?chat=ID``) if it is this owner's; else a new chat."""
        st = UIState(owner=request_owner(request))
        wanted = wanted if isinstance(wanted, str) else ""
        history = (self.ui.resume(wanted, st) if wanted else None) or []
        notice = "" if not wanted or st.session_id else notice_html("error", "That chat was not found.")
        return (st, history, notice, *self._opened(st))

    def on_search(self, query: str, state: UIState | None, request: gr.Request) -> dict[str, Any]:
        st = current_state(state, request)
        return self._list(st.owner, st.session_id, text_of(query))

    def on_pick(self, session_id: str | None, state: UIState | None, request: gr.Request) -> Outputs:
        st = current_state(state, request)
        history = self.ui.resume(session_id, st) if session_id and session_id != st.session_id else None
        if history is None:
            return gr.update(), st, gr.update(), gr.update(), *self._opened(st)
        st.meter = ""
        return history, st, "", "", *self._opened(st)

    def on_new(self, state: UIState | None, request: gr.Request) -> Outputs:
        st = UIState(owner=current_state(state, request).owner)
        return [], st, "", "", *self._opened(st)

    def on_rename(self, title: str, state: UIState | None, request: gr.Request) -> Outputs:
        st = current_state(state, request)
        self.ui.rename(st, text_of(title))
        return st, *self._opened(st)

    def on_delete(self, state: UIState | None, request: gr.Request) -> Outputs:
        st = current_state(state, request)
        deleted = self.ui.delete(st)
        notice = notice_html("info", "Chat deleted." if deleted else "Nothing to delete yet.")
        undo = gr.update(visible=deleted is not None, value="Undo delete")
        return [], st, notice, "", *self._opened(st), undo, deleted or ""

    def on_undo(self, deleted: str, state: UIState | None, request: gr.Request) -> Outputs:
        st = current_state(state, request)
        if not deleted or not self.ui.undo_delete(st, deleted):
            return gr.update(), st, gr.update(), gr.update(), *self._opened(st), gr.update(visible=False)
        return (
            self.ui.stored_history(st),
            st,
            notice_html("info", "Chat restored."),
            "",
            *self._opened(st),
            gr.update(visible=False),
        )

    # -- turns ---------------------------------------------------------------------------------------------------

    async def on_submit(
        self,
        message: dict[str, Any] | None,
        state: UIState | None,
        mode: str,
        request: gr.Request,
    ) -> AsyncIterator[Outputs]:
        """Streams the chat and the tab's state only: Gradio rebuilds a component (and its config) for every
        update dict in a yield, so the input box is locked once, then given its (empty) value per word, and
        the meter, chat list and an unlocked box follow once, in ``on_settled``, chained after the turn."""
        st = current_state(state, request)
        message = message if isinstance(message, dict) else {}
        text = str(message.get("text") or "")
        files = [f if isinstance(f, str) else str(f.get("path", "")) for f in message.get("files") or []]
        if not text.strip() and not files:
            yield gr.update(), gr.update(), st
            return  # nothing to send: no bubble, nothing stored
        box: Any = busy_box(clear=True)
        # Stop between two updates: Gradio abandons this generator unclosed; the queue closes the turn when
        # the event ends, so the interruption is stored before /cancel answers (webapp/web/ui/queue.py).
        turn = closed_with_event(self.ui.browser_turn(text, files, st, mode))
        async with aclosing(turn) as views:
            async for view in views:
                st.meter = view.meter or st.meter
                yield box, self._chat_value(view.history), st
                box = EMPTY_BOX  # locked and empty already: a plain value costs Gradio no rebuild

    async def on_retry(self, state: UIState | None, mode: str, request: gr.Request) -> AsyncIterator[Outputs]:
        st = current_state(state, request)
        box: Any = busy_box(clear=False)
        async with aclosing(closed_with_event(self.ui.retry(st, mode))) as views:  # see on_submit
            async for view in views:
                st.meter = view.meter or st.meter
                yield box, self._chat_value(view.history), st
                box = EMPTY_BOX

    def _chat_value(self, history: list[Message]) -> list[dict[str, Any]]:
        """The Chatbot's value as Gradio would send it, made here on the event loop (see ``wire``)."""
        return cast("list[dict[str, Any]]", self.layout.chatbot.postprocess(cast(Any, history)).model_dump())

    def on_settled(self, state: UIState | None, request: gr.Request) -> Outputs:
        """After a turn (whatever its end): the input open again, the context meter, the chat list and URL."""
        st = current_state(state, request)
        return idle_box(), st.meter or gr.update(), *self._opened(st)

    async def on_stop(self, state: UIState | None, request: gr.Request) -> Outputs:
        """The answer is cancelled (``cancels=``); show the chat as stored, with "This answer was interrupted."."""
        st = current_state(state, request)
        return idle_box(), await self.ui.settled_history(st), st, *self._opened(st)

    # -- wiring -----------------------------------------------------------------------------------------------

    def wire(self, demo: gr.Blocks) -> None:
        c = self.layout
        deleted = gr.State("")
        opened = [c.sessions, c.title, c.chat_id]
        demo.load(
            self.on_load,
            [c.chat_id],
            [c.state, c.chatbot, c.notice, *opened],
            js=READ_CHAT_FROM_URL,
        )
        demo.load(None, None, None, js=ON_PAGE_LOAD)
        c.chat_id.change(None, [c.chat_id], None, js=SHOW_CHAT_IN_URL)
        turn_outputs = [c.box, c.chatbot, c.state]  # what changes per word; the rest once, after the turn
        # A turn's handlers give their values post-processed: Gradio post-processes each other value of each
        # update in a worker thread, two thread hand-offs per word that cost the UI path more CPU than the
        # work they carry (they were a third of its busy samples at one stream).
        # One limit for both kinds of turn (RAILCHAT_CONCURRENT_TURNS): Gradio gives each event its own.
        submit = c.box.submit(
            self.on_submit, [c.box, c.state, c.mode], turn_outputs, postprocess=False, concurrency_id=TURNS
        )
        retry = c.retry.click(
            self.on_retry, [c.state, c.mode], turn_outputs, postprocess=False, concurrency_id=TURNS
        )
        for turn in (submit, retry):
            turn.then(self.on_settled, [c.state], [c.box, c.meter, *opened])
        # Gradio cancels only after the Stop event's own function has run: cancel first, then read back.
        stop = c.box.stop(None, None, None, cancels=[submit, retry])
        stop.then(self.on_stop, [c.state], [c.box, c.chatbot, c.state, *opened])
        c.box.change(None, None, [c.notice], js="() => ''")  # typing clears an old notice (in the browser)
        c.search.change(self.on_search, [c.search, c.state], [c.sessions])
        c.sessions.input(
            self.on_pick, [c.sessions, c.state], [c.chatbot, c.state, c.notice, c.meter, *opened]
        )
        fresh = [c.chatbot, c.state, c.notice, c.meter, *opened]
        c.new.click(self.on_new, [c.state], fresh)
        c.chatbot.clear(self.on_new, [c.state], fresh)  # its bin: a new chat
        c.title.submit(self.on_rename, [c.title, c.state], [c.state, *opened])
        c.title.blur(self.on_rename, [c.title, c.state], [c.state, *opened])
        c.delete.click(self.on_delete, [c.state], [*fresh, c.undo, deleted])
        c.undo.click(self.on_undo, [deleted, c.state], [*fresh, c.undo])
