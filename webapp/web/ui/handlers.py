"""Gradio events of the chat page, as typed methods over ``ChatUI``'s operations.

Every handler settles the tab's owner first (signed-in name, else the browser's id): nothing a browser sends
decides whose chats are read. Each returns the values of the outputs it is wired to, in that order.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

import gradio as gr

from webapp.web.ui.layout import ChatLayout
from webapp.web.ui.render import notice_html
from webapp.web.ui.state import UIState, current_state, owner_id
from webapp.web.ui.tabs import ExtraTab

if TYPE_CHECKING:
    from webapp.web.ui.chat import ChatUI

Outputs = tuple[Any, ...]


class ChatHandlers:
    def __init__(self, ui: ChatUI, layout: ChatLayout) -> None:
        self.ui = ui
        self.layout = layout

    def _sessions_update(self, owner: str, value: str | None) -> dict[str, Any]:
        return gr.update(choices=self.ui.session_choices(owner), value=value)

    # -- handlers -------------------------------------------------------------------------------------------

    def on_load(self, browser_id: str, request: gr.Request) -> Outputs:
        who = owner_id(request, browser_id)
        return who, UIState(owner=who), self._sessions_update(who, None)

    async def on_submit(
        self,
        message: dict[str, Any],
        state: UIState | None,
        browser_id: str,
        mode: str,
        request: gr.Request,
    ) -> AsyncIterator[Outputs]:
        st = current_state(state, browser_id, request)
        files = [f if isinstance(f, str) else f.get("path", "") for f in message.get("files", [])]
        history = self.ui.stored_history(st)
        yield gr.update(value=None, interactive=False), history, st, "", gr.update(), gr.update()
        async for view in self.ui.browser_turn(message.get("text", "") or "", files, st, mode):
            yield gr.update(), view.history, st, view.notice, view.meter, gr.update()
        yield (
            gr.update(value=None, interactive=True),
            gr.update(),
            st,
            gr.update(),
            gr.update(),
            self._sessions_update(st.owner, st.session_id),
        )

    async def on_retry(
        self, state: UIState | None, browser_id: str, mode: str, request: gr.Request
    ) -> AsyncIterator[Outputs]:
        st = current_state(state, browser_id, request)
        if not st.last_text and not st.last_files:
            yield gr.update(), st, notice_html("error", "Nothing to retry yet."), gr.update()
            return
        async for view in self.ui.browser_turn(st.last_text, list(st.last_files), st, mode):
            yield view.history, st, view.notice, view.meter

    def on_pick(
        self, session_id: str | None, state: UIState | None, browser_id: str, request: gr.Request
    ) -> Outputs:
        st = current_state(state, browser_id, request)
        if not session_id or session_id == st.session_id:
            return gr.update(), st, gr.update()
        return self.ui.resume(session_id, st), st, ""

    def on_new(self, state: UIState | None, browser_id: str, request: gr.Request) -> Outputs:
        st = current_state(state, browser_id, request)
        return [], UIState(owner=st.owner), "", "", gr.update(value=None)

    def on_delete(self, state: UIState | None, browser_id: str, request: gr.Request) -> Outputs:
        st = current_state(state, browser_id, request)
        deleted = self.ui.delete(st)
        message = "Chat deleted." if deleted else "Nothing to delete yet."
        return [], st, notice_html("info", message), "", self._sessions_update(st.owner, None)

    def on_stop(self, state: UIState | None, browser_id: str, request: gr.Request) -> Outputs:
        st = current_state(state, browser_id, request)
        return (
            gr.update(interactive=True),
            notice_html("stopped", "Stopped. What was shown is kept."),
            self._sessions_update(st.owner, st.session_id),
        )

    # -- wiring -----------------------------------------------------------------------------------------------

    def wire(self, demo: gr.Blocks, tabs: Sequence[tuple[ExtraTab, gr.Tab]] = ()) -> None:
        c = self.layout
        demo.load(self.on_load, [c.owner], [c.owner, c.state, c.sessions])
        if tabs:
            demo.load(_tab_visibility(tabs), None, [tab for _, tab in tabs])
        submit = c.box.submit(
            self.on_submit,
            [c.box, c.state, c.owner, c.mode],  # never the Chatbot's value: it is rebuilt from the store
            [c.box, c.chatbot, c.state, c.notice, c.meter, c.sessions],
        )
        c.box.stop(self.on_stop, [c.state, c.owner], [c.box, c.notice, c.sessions], cancels=[submit])
        c.retry.click(self.on_retry, [c.state, c.owner, c.mode], [c.chatbot, c.state, c.notice, c.meter])
        c.sessions.input(self.on_pick, [c.sessions, c.state, c.owner], [c.chatbot, c.state, c.notice])
        fresh = [c.chatbot, c.state, c.notice, c.meter, c.sessions]
        c.new.click(self.on_new, [c.state, c.owner], fresh)
        c.chatbot.clear(self.on_new, [c.state, c.owner], fresh)  # its bin: a new chat
        c.delete.click(self.on_delete, [c.state, c.owner], fresh)


def _tab_visibility(tabs: Sequence[tuple[ExtraTab, gr.Tab]]) -> Any:
    def show(request: gr.Request) -> Outputs:
        return tuple(gr.update(visible=extra.visible_to(request)) for extra, _ in tabs)

    return show
