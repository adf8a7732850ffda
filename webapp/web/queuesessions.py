"""Gradio's queue forgets a tab with a running answer when 2,000 other tabs join after it (session 17).

Gradio keeps each tab's outgoing messages in an LRU cache of 2,000 sessions, ordered by when a session was
added. A visitor who joins cheap events under 2,000 fresh session hashes (32 s here, from one browser) pushed
out every tab that joined before, running answers included: the victim's stream ended with Gradio's
``session_not_found`` error mid-answer and the worker raised a ``KeyError`` on its next word.

So the cache of each mounted page is replaced by one that, when full, forgets the oldest tab with no event
waiting or running (a tab between turns has no stream open; its next join makes a new entry), and never one
that has. Those are at most the queue's waiting events plus its running ones, so the cache stays within
its 2,000 plus those. Gradio's queue attributes are internals: ``install`` refuses to run (raising at start)
if a release renames them, and ``tests/web/test_queue_sessions.py`` fails.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from gradio.utils import LRUCache


class KeepRunningSessions(LRUCache):
    """Gradio's per-session message cache, never evicting a session with a waiting or running event."""

    def __init__(self, queue: Any, max_size: int) -> None:
        super().__init__(max_size)
        self._queue = queue

    def __setitem__(self, key: Any, value: Any) -> None:
        if key in self:
            self.move_to_end(key)
        elif len(self) >= self.max_size:
            running = {event.session_hash for event in list(self._queue.event_ids_to_events.values())}
            idle = next((session for session in self if session not in running), None)
            if idle is not None:
                del self[idle]
        OrderedDict.__setitem__(self, key, value)


def install(queue: Any) -> None:
    """Replace ``queue``'s session cache (a Gradio ``Queue``) with one that keeps running tabs."""
    old = queue.pending_messages_per_session
    if not isinstance(old, LRUCache) or not isinstance(queue.event_ids_to_events, dict):
        raise RuntimeError("Gradio's queue changed: its session cache cannot be protected")
    cache = KeepRunningSessions(queue, old.max_size)
    for session, messages in old.items():
        OrderedDict.__setitem__(cache, session, messages)
    queue.pending_messages_per_session = cache
