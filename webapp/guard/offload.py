"""Rail work that may block for milliseconds, run in a worker thread instead of on the event loop.

A check that ends a sentence may embed it (the semantic moderation tier: ~4-9 ms of CPU per sentence in
ONNX Runtime, which releases the GIL). On the event loop's thread that stalls every other stream for as
long; in a worker thread the loop goes on serving them, on the machine's other core when it has one.

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

T = TypeVar("T")


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
