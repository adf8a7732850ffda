"""A new Gradio session builds the config of a block when an update needs it, not of every block at once.

Gradio 6 gives each new session (a tab's first event) the config of every block of its page
(``SessionState.config_values``: each component's props and API schema, built through pydantic) so that
``/gradio_api/deep_link`` can save the tab's state later. This page makes no deep links and that route is
closed at the door (``gradiodoors.PAGE_ROUTES``), yet each new tab paid for all of it: 4.7 ms of CPU for the
chat page's 64 blocks before its first event ran, on the event loop. Gradio already builds a config that is
missing when an update writes a value into it (``SessionState._update_value_in_config``), from the same
block, so a session that starts with none builds only those its events update, the same configs as before.
"""

from __future__ import annotations

from typing import Any

from gradio.state_holder import SessionState

_MARK = "_railchat_configs_on_demand"


class _Unconfigured:
    """What ``SessionState.__init__`` reads of the page: its default config, and no block to configure yet."""

    blocks: dict[int, Any] = {}

    def __init__(self, page: Any) -> None:
        self.default_config = page.default_config


def configs_on_demand(session_state: type[SessionState] = SessionState) -> None:
    """Make every new session of ``session_state`` start without block configs (once per process)."""
    if getattr(session_state.__init__, _MARK, False):
        return
    original = session_state.__init__

    def __init__(self: SessionState, blocks: Any) -> None:
        original(self, _Unconfigured(blocks))  # type: ignore[arg-type]  # reads only what _Unconfigured has

    setattr(__init__, _MARK, True)
    session_state.__init__ = __init__  # type: ignore[method-assign]
