"""Which tab joined which queued event: Gradio's ``/cancel`` stops an event named by its ``event_id`` alone.

Gradio's cancel route drops the named event from the queue and closes its running generator (a streaming
answer) whatever ``session_hash`` the body carries. Binding the hash to the browser (``tabbinding``) kept other
browsers out of a tab's stream but not out of its Stop button: whoever learned an event id (a log line, a
proxy) could stop that tab's turns from a tab of their own. So the doors note the bound tab each
``/queue/join`` answered an event id to, and only that tab may cancel the event.

In memory: an event lives in one process's queue, and a restart ends it. The oldest ids are forgotten past
``MAX_EVENTS``; an event that old has finished long ago (if not, its tab can no longer stop it early).
"""

from __future__ import annotations

from collections import OrderedDict

MAX_EVENTS = 50_000  # ~100 bytes each: a few MB at most, however many tabs join


class EventLedger:
    def __init__(self, *, max_events: int = MAX_EVENTS) -> None:
        self._tabs: OrderedDict[str, str] = OrderedDict()  # event id -> bound session hash, oldest first
        self._max_events = max_events

    def record(self, event_id: object, tab: object) -> None:
        if not isinstance(event_id, str) or not isinstance(tab, str):
            return
        self._tabs[event_id] = tab
        self._tabs.move_to_end(event_id)
        while len(self._tabs) > self._max_events:
            self._tabs.popitem(last=False)

    def joined(self, event_id: object, tab: object) -> bool:
        """Whether ``tab`` (a bound session hash) joined the event ``event_id``."""
        return isinstance(event_id, str) and isinstance(tab, str) and self._tabs.get(event_id) == tab
