"""Streaming answers saved together: one store transaction every interval for all of them.

Each answer notes its text as it grows; whichever answer notes after the interval has passed writes every
noted text in one transaction. With many streams that is one write per interval instead of one per answer
per interval (SQLite takes one writer at a time; each write also costs a thread hand-off), and an answer is
still never more than about one interval behind in the store.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from webapp.store import Store


class Checkpoints:
    def __init__(
        self, store: Store, interval_s: float, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._store = store
        self._interval_s = interval_s
        self._clock = clock
        self._pending: dict[int, tuple[str, str, str]] = {}
        self._last_write = clock()
        self._writing = False

    async def note(self, answer_id: int, content: str, reasoning: str, shown: str = "") -> None:
        """Remember the answer's text so far (and the part the chatter was shown, for a reopened chat after a
        crash); write everything noted if the interval has passed."""
        self._pending[answer_id] = (content, reasoning, shown)
        now = self._clock()
        if self._writing or now - self._last_write < self._interval_s:
            return
        self._writing, self._last_write = True, now
        batch, self._pending = self._pending, {}
        try:
            # Shielded: a caller cancelled meanwhile must not drop the other answers' texts with it.
            await asyncio.shield(asyncio.to_thread(self._store.checkpoints, _rows(batch)))
        finally:
            self._writing = False

    def forget(self, answer_id: int) -> None:
        """The answer is being stored as final: nothing of it is left to save."""
        self._pending.pop(answer_id, None)


def _rows(batch: dict[int, tuple[str, str, str]]) -> list[tuple[int, str, str, str]]:
    return [(answer_id, *texts) for answer_id, texts in batch.items()]
