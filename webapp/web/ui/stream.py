"""One turn's pipeline events folded into Chatbot messages, one small method per event type."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from webapp.turn.events import (
    AnswerDelta,
    ContextInfo,
    Notice,
    ReasoningDelta,
    Retract,
    SessionReady,
    TurnDone,
    TurnEvent,
)
from webapp.web.ui.render import (
    Message,
    close_thinking,
    context_meter,
    done_message,
    notice_for,
    notice_html,
    thinking_message,
)
from webapp.web.ui.state import UIState


@dataclass(frozen=True)
class TurnView:
    """One streaming update for the UI: the chat history, the notice banner and the context meter."""

    history: list[Message]
    notice: str
    meter: str


@dataclass
class TurnRenderer:
    """The chat as it grows during one turn. ``apply`` returns the final view once the turn is done."""

    state: UIState
    history: list[Message]
    meter: str = ""
    banner: str = ""  # a non-fatal notice shown above the chat for the rest of the turn
    thought: Message | None = None
    answer: Message | None = None
    thinking_since: float = field(default_factory=time.monotonic)

    def view(self, notice: str | None = None) -> TurnView:
        return TurnView(self.history, self.banner if notice is None else notice, self.meter)

    def apply(self, event: TurnEvent) -> TurnView | None:
        """Fold one event in; the returned view is the last one of the turn, else None."""
        if isinstance(event, SessionReady):
            self.state.session_id = event.session_id
        elif isinstance(event, ContextInfo):
            self.meter = context_meter(event)
        elif isinstance(event, Notice):
            self.banner = notice_html("info", event.message)
        elif isinstance(event, ReasoningDelta):
            self._reasoning(event.text)
        elif isinstance(event, AnswerDelta):
            self._answer(event.text)
        elif isinstance(event, Retract):
            self.history = [m for m in self.history if m is not self.thought and m is not self.answer]
            self.thought = self.answer = None
        elif isinstance(event, TurnDone):
            return self._done(event)
        return None

    def _reasoning(self, text: str) -> None:
        if self.thought is None:
            self.thought, self.thinking_since = thinking_message(), time.monotonic()
            self.history.append(self.thought)
        self.thought["content"] += text

    def _answer(self, text: str) -> None:
        if self.answer is None:
            self.answer = {"role": "assistant", "content": ""}
            self.history.append(self.answer)
        self.answer["content"] += text

    def _done(self, done: TurnDone) -> TurnView:
        close_thinking(self.thought, done, self.thinking_since)
        if done.status != "complete":
            self.history.append(done_message(done))
        return self.view(notice_for(done) or self.banner)
