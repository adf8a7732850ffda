"""The hook for tabs beside the chat (e.g. a reviewers' Audit tab), shown by role.

Hidden is not protection: a tab's own handlers must check the caller's role on every event. ``visible_to``
only decides whether the tab is drawn for this browser when the page loads.
"""

from __future__ import annotations

from typing import Any, Protocol

import gradio as gr


class ExtraTab(Protocol):
    def build(self) -> gr.Tab:
        """Create the tab (``with gr.Tab(...) as tab: ...``) and wire its own events; return the tab."""
        ...

    def visible_to(self, request: Any) -> bool:
        """Whether this tab is drawn for the signed-in user of ``request`` (a ``gr.Request``)."""
        ...
