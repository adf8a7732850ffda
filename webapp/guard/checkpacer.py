"""One pace for the streamed checks of every answer in flight: each output filter checks its answer's new
words on its own clock, and without a shared pace 64 of them at once fill a core with checks."""

from __future__ import annotations

import weakref


class CheckPacer:
    """Spaces the streamed checks of every answer in flight so that together they run at most about
    ``checks_per_s`` times a second: each check holds the event loop ~1 ms, and at 64 streams checks every
    100 ms are most of a core, so every stream's next words and every new turn's first words queue behind
    them. With few streams the filter's own interval applies; with many, each stream's words come in larger
    groups instead of later. A stream's first words are never held (the interval starts after them)."""

    def __init__(self, checks_per_s: float) -> None:
        self._checks_per_s = checks_per_s
        self._live: weakref.WeakSet[object] = weakref.WeakSet()  # a filter nobody holds is done

    def join(self, stream: object) -> None:
        self._live.add(stream)

    def leave(self, stream: object) -> None:
        self._live.discard(stream)

    def interval_s(self, floor_s: float) -> float:
        if floor_s <= 0 or self._checks_per_s <= 0:
            return floor_s  # every word checked (moderation_eval's setting) stays so
        return max(floor_s, len(self._live) / self._checks_per_s)
