"""The hook for tabs beside the chat (e.g. a reviewers' Audit tab).

A tab is part of every page its app serves: an app is only given the tabs its users may have (see
webapp/web/audit_route.py), and a tab's own handlers still check the caller's role on every event.
"""

from __future__ import annotations

from typing import Protocol

import gradio as gr


class ExtraTab(Protocol):
    def build(self) -> gr.Tab:
        """Create the tab (``with gr.Tab(...) as tab: ...``) and wire its own events; return the tab."""
        ...
