"""The Gradio chat UI, split by job: ``chat`` (operations and the page), ``layout`` (components),
``handlers`` (Gradio events), ``stream`` (pipeline events -> Chatbot messages), ``render`` (messages and
HTML), ``state`` (who is chatting, which chat is open), ``tabs`` (the hook for tabs beside the chat)."""

from webapp.web.ui.chat import ChatUI
from webapp.web.ui.layout import INSTANT, THINKING
from webapp.web.ui.markdown import ChatMarkdown
from webapp.web.ui.render import ChatPainter, context_meter, notice_html
from webapp.web.ui.state import UIState
from webapp.web.ui.stream import TurnView
from webapp.web.ui.tabs import ExtraTab

__all__ = [
    "INSTANT",
    "THINKING",
    "ChatMarkdown",
    "ChatPainter",
    "ChatUI",
    "ExtraTab",
    "TurnView",
    "UIState",
    "context_meter",
    "notice_html",
]
