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

from typing import Any

from gradio.utils import LRUCache


class KeepRunningSessions:
    """Mixed in before the cache's own class (Gradio's ``LRUCache``, or the UI queue's subclass of it, whose
    own ``__setitem__`` still runs): evicts the oldest idle session itself, and lets the cache grow past its
    size rather than evict a session with a waiting or running event."""

    _queue: Any
    limit: int
    max_size: int

    def __setitem__(self, key: Any, value: Any) -> None:
        sessions: Any = self
        if key not in sessions and len(sessions) >= self.limit:
            running = {event.session_hash for event in list(self._queue.event_ids_to_events.values())}
            idle = [session for session in sessions if session not in running]
            for session in idle[: len(sessions) - self.limit + 1]:  # the oldest first, back within the size
                del sessions[session]
        self.max_size = max(self.limit, len(sessions) + 1)  # the LRU below never evicts by itself
        super().__setitem__(key, value)  # type: ignore[misc]


def install(queue: Any) -> None:
    """Make ``queue``'s session cache (a Gradio ``Queue``'s) keep the tabs with a waiting or running event."""
    cache = queue.pending_messages_per_session
    if not isinstance(cache, LRUCache) or not isinstance(queue.event_ids_to_events, dict):
        raise RuntimeError("Gradio's queue changed: its session cache cannot be protected")
    protected: Any = cache
    protected.__class__ = type(f"KeepRunning{type(cache).__name__}", (KeepRunningSessions, type(cache)), {})
    protected._queue = queue
    protected.limit = cache.max_size
