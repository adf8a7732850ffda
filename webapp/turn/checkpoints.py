"""Streaming answers saved behind the stream: one store transaction per interval for all of them.

Each answer notes its text as it grows and goes on streaming: noting never waits for the store. A background
task writes every noted text at most one interval after the first unsaved note, all answers in one
transaction (SQLite takes one writer at a time, and each write costs a thread hand-off), and stops when
nothing is left to write, so an idle app has no timer running.

What this may lose is bounded: a crash loses at most the last interval of an answer's text, and the answer
is then marked interrupted with the text saved before (`Store.mark_interrupted` at the next start). A final
write never loses to a checkpoint: `forget` drops the answer's unsaved text before its final write, and a
batch already on its way skips an answer that became final meanwhile (`Store.checkpoints`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from webapp.store import Store

log = logging.getLogger(__name__)

Texts = tuple[str, str, str]  # content, reasoning, shown


class Checkpoints:
    def __init__(
        self,
        store: Store,
        interval_s: float,
        *,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self._store = store
        self._interval_s = interval_s
        self._sleep = sleep
        self._pending: dict[int, Texts] = {}
        self._writer: asyncio.Task[None] | None = None

    def note(self, answer_id: int, content: str, reasoning: str, shown: str = "") -> None:
        """Remember the answer's text so far (and the part the chatter was shown, for a reopened chat after a
        crash); it is written within one interval, together with every other answer's."""
        self._pending[answer_id] = (content, reasoning, shown)
        writer = self._writer
        # A writer of another event loop (a closed one, in tests) can never run here: start a new one.
        if writer is None or writer.done() or writer.get_loop() is not asyncio.get_running_loop():
            self._writer = asyncio.get_running_loop().create_task(self._write_behind())

    def forget(self, answer_id: int) -> None:
        """The answer is being stored as final: nothing of it is left to save."""
        self._pending.pop(answer_id, None)

    async def flush(self) -> None:
        """Write everything noted so far in one transaction."""
        batch, self._pending = self._pending, {}
        if batch:
            await asyncio.to_thread(self._store.checkpoints, _rows(batch))

    async def drained(self) -> None:
        """Wait until the background writer has written everything and stopped (tests, shutdown)."""
        while self._writer is not None and not self._writer.done():
            await asyncio.shield(self._writer)

    async def _write_behind(self) -> None:
        while self._pending:
            await self._sleep(self._interval_s)
            try:
                await self.flush()
            except Exception:  # a checkpoint is a safety net: the answer streams on, its final write follows
                log.warning("saving streaming answers failed; trying again next interval", exc_info=True)


def _rows(batch: dict[int, Texts]) -> list[tuple[int, str, str, str]]:
    return [(answer_id, *texts) for answer_id, texts in batch.items()]
