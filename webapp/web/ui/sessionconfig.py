"""A Gradio session keeps no copy of its blocks' configs: nothing in this app reads one.

Gradio 6 keeps, per session, the config of its page's blocks (``SessionState.config_values``: each
component's props and API schema, built through pydantic) for one reader only, ``/gradio_api/deep_link``,
which saves a tab's state for a link. This page makes no deep links and that route is closed at the door
(``gradiodoors.PAGE_ROUTES``), yet the copy was paid for on the event loop:

- a new tab built the config of every block before its first event ran (4.7 ms of CPU for the chat page's 64
  blocks); it now starts with none;
- every update that sets a prop (the input box locked and opened again, the chat list) rebuilt the updated
  block's config, its API schema through pydantic included, and every value an event read or wrote was
  copied into it (``SessionState._update_config``, ``_update_value_in_config``): these now do nothing.

What Gradio sends the browser is built from the blocks and the values themselves, never from this copy.
"""

from __future__ import annotations

from typing import Any

from gradio.state_holder import SessionState

_MARK = "_railchat_no_session_configs"


class _Unconfigured:
    """What ``SessionState.__init__`` reads of the page: its default config, and no block to configure yet."""

    blocks: dict[int, Any] = {}

    def __init__(self, page: Any) -> None:
        self.default_config = page.default_config


def _kept_nowhere(self: SessionState, key: int, value: Any = None) -> None:
    """A config (or a value for it) that only the closed deep-link route would read: not kept."""


def no_session_configs(session_state: type[SessionState] = SessionState) -> None:
    """Make every session of ``session_state`` keep no block configs (once per process)."""
    if getattr(session_state.__init__, _MARK, False):
        return
    original = session_state.__init__

    def __init__(self: SessionState, blocks: Any) -> None:
        original(self, _Unconfigured(blocks))  # type: ignore[arg-type]  # reads only what _Unconfigured has

    setattr(__init__, _MARK, True)
    session_state.__init__ = __init__  # type: ignore[method-assign]
    session_state._update_config = _kept_nowhere  # type: ignore[method-assign]
    session_state._update_value_in_config = _kept_nowhere  # type: ignore[method-assign]
