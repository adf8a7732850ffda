"""How long the event loop's thread may keep the GIL while a worker thread waits for it.

Every stream's Python (moderation, parsing, sending) runs on the event loop's thread; the store's
transactions and the embedding model run in worker threads. A worker lets the GIL go at every SQLite call
and every model run, and then waits to get it back until the loop's thread lets it go: at most the switch
interval, 5 ms by default. A write transaction makes a dozen such calls and holds the store's write lock
while it waits, so when many turns start at once their writes queue behind each other's waits: 64 turns
started together (the load benchmark) waited 480-580 ms (p50) for their first two writes with 5 ms, and
340-360 ms with 1 ms, for the same CPU per turn. Shorter still saved nothing more there and costs more
switches; longer (or 0 here: Python's default) gives the loop longer uninterrupted runs.
"""

from __future__ import annotations

import sys


def set_switch_interval(ms: float) -> None:
    """Let a waiting thread take the GIL after ``ms`` milliseconds; 0 keeps the interpreter's default."""
    if ms > 0:
        sys.setswitchinterval(ms / 1000)
