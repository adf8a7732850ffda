"""A background loop's pause driven by the test: the app's periodic work runs when the test says, not by time.

The upload sweep (``webapp.web.uploadsweep.Sweeper.run``) works, then awaits its pause, forever. Given a
``ManualTicks`` as that pause (``create_app(sweep_pause=...)``), the loop waits until the test calls ``tick()``,
which returns once the loop's next round is done and it waits again: no sleeps, no polling.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable


class ManualTicks:
    def __init__(self, timeout_s: float = 20.0) -> None:
        self.timeout_s = timeout_s
        self.pauses = 0  # how often the loop came round to its pause (the first: after its first round)
        self._changed = threading.Condition()
        self._release: Callable[[], None] | None = None

    async def __call__(self, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        event = asyncio.Event()
        with self._changed:
            self.pauses += 1
            self._release = lambda: loop.call_soon_threadsafe(event.set)
            self._changed.notify_all()
        await event.wait()

    def wait_paused(self) -> int:
        """Until the loop waits in its pause (its first round done); how many pauses so far."""
        with self._changed:
            assert self._changed.wait_for(lambda: self._release is not None, self.timeout_s), "never paused"
            return self.pauses

    def tick(self) -> None:
        """End the pause; return once the round it starts is over (the loop waits in its pause again)."""
        seen = self.wait_paused()
        with self._changed:
            release, self._release = self._release, None
            assert release is not None
            release()
            assert self._changed.wait_for(lambda: self.pauses > seen, self.timeout_s), (
                "no round after the tick"
            )
