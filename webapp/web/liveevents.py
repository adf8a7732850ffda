"""Which tab an event belongs to, read from Gradio's live queue: Gradio's ``/cancel`` trusts the body's ``event_id``.

Gradio's cancel route drops the named event from the queue and closes its running generator (a streaming
answer) whatever ``session_hash`` the body carries. Binding the hash to the browser (``tabbinding``) kept other
browsers out of a tab's stream but not out of its Stop button: whoever learned an event id (a log line, a
proxy) could stop that tab's turns from a tab of their own. So only the tab an event was joined under may
cancel it.

The answer is read from the running queue itself, not from a record of our own: the event's own
``session_hash`` (already bound to its browser) as Gradio holds it from the join until its completion reaches
the tab's stream. A record kept beside the queue had to forget old entries (it remembered the last 50,000
joins), and a visitor who joined 50,000 cheap events flushed a victim's running turn out of it, after which
the victim's own Stop was refused (session 17). The queue holds exactly the events that can still be
stopped, for as long as they can, and an event nobody holds any more has nothing left to cancel.

Gradio's queue attributes are not a public API: if a release renames them, every cancel is refused (fail
closed) and ``tests/web/test_cancel_flood.py`` fails, so an upgrade cannot quietly open the door again.
"""

from __future__ import annotations

from collections.abc import Callable


def tab_holds(blocks: object, event_id: object, tab: object) -> bool:
    """Whether the running Gradio app ``blocks`` holds the event ``event_id`` under the (bound) tab ``tab``."""
    if not isinstance(event_id, str) or not isinstance(tab, str):
        return False
    queue = getattr(blocks, "_queue", None)
    pending = getattr(queue, "pending_event_ids_session", None)  # joined, completion not yet delivered
    if isinstance(pending, dict) and event_id in pending.get(tab, ()):
        return True
    events = getattr(queue, "event_ids_to_events", None)  # waiting or running
    event = events.get(event_id) if isinstance(events, dict) else None
    return event is not None and getattr(event, "session_hash", None) == tab


class LiveEvents:
    """``joined(path, event_id, tab)``: whether the page a request ``path`` belongs to runs that tab's event."""

    def __init__(self, page_of: Callable[[str], object]) -> None:
        self._page_of = page_of  # the Gradio Blocks serving a request path (the page at "/" or "/audit")

    def joined(self, path: str, event_id: object, tab: object) -> bool:
        return tab_holds(self._page_of(path), event_id, tab)
