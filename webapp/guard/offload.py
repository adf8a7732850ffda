"""Rail work that may block for milliseconds, run in a worker thread instead of on the event loop.

A check that ends a sentence may embed it (the semantic moderation tier: ~4-9 ms of CPU per sentence in
ONNX Runtime, which releases the GIL). On the event loop's thread that stalls every other stream for as
long; in a worker thread the loop goes on serving them, on the machine's other core when it has one.

Only the model run moves (``check_embedding_elsewhere``): the check's rules are pure Python and hold the
GIL, so in a worker they made the loop wait for them (up to a switch interval each time it wanted the GIL
back) and the tail of first content grew; on the loop they cost what they cost, once.

The caller still awaits the verdict before anything is released, so moving the work changes when other
streams run, never what a stream shows.

Cancellation: a job that has not started is withdrawn; one that has cannot be interrupted, so the
cancelled caller waits for it to finish (shielded) before the cancellation goes on. A cancelled turn
therefore leaves no job of its own running behind it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections.abc import Callable
from typing import TypeVar

from webapp.guard.moderation.embedder import EmbeddingNeeded, embeddings_deferred

T = TypeVar("T")
# A check asks again after its sentences were embedded; should another stream's sentences push them out of
# the cache meanwhile (thousands of them would have to), the last try embeds in line rather than loop.
EMBED_TRIES = 2


class Offload:
    """A worker thread for rail work. One per Guard: checks queue in order, one at a time (the embedding
    model runs one batch at a time anyway, and the rules hold the GIL)."""

    def __init__(self, *, workers: int = 1, name: str = "rails") -> None:
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)

    async def run(self, fn: Callable[..., T], /, *args: object) -> T:
        job = self._pool.submit(functools.partial(fn, *args))
        try:
            return await asyncio.wrap_future(job)
        except asyncio.CancelledError:
            if not job.cancel():  # it has started: let it finish before the caller's clean-up goes on
                await _outlast(job)
            raise

    def close(self) -> None:
        """Withdraw queued jobs; the one running finishes in its thread."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def check_embedding_elsewhere(self, check: Callable[[str], T], text: str) -> T:
        """``check(text)`` on the caller's thread, the sentences it needs embedded in the worker: the check
        runs with embeddings deferred, and each time it asks for vectors it does not have they are embedded
        in the worker and it runs again (its rule verdicts are remembered, so the rerun is cheap)."""
        for _ in range(EMBED_TRIES):
            try:
                with embeddings_deferred():
                    return check(text)
            except EmbeddingNeeded as needed:
                await self.run(needed.fill)
        return check(text)


async def _outlast(job: concurrent.futures.Future[T]) -> None:
    """Wait for a running job, through further cancellations; its result or error belongs to nobody now."""
    waiter = asyncio.wrap_future(job)
    while not waiter.done():
        try:
            await asyncio.shield(waiter)
        except asyncio.CancelledError:
            continue
        except Exception:  # reported to nobody: the caller was cancelled
            return
