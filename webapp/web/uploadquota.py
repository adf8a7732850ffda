"""How much one owner may upload over time, and how full the upload folder may get.

Gradio's upload route keeps every file it receives, and the doors cap only one request (one message's images
at their largest). A visitor who uploads again and again filled the disk at network speed (session 17). So
each owner (the signed-in user, else the browser's signed id) may upload at most so many bytes, as its
requests declare them, and so many files per window; beyond, 429 with the wait. A browser id costs nothing
(drop the cookie, get another), so the folder as a whole is capped too: its size as the last sweep measured
it (``uploadsweep``) plus what was admitted since. Past it every upload is refused until old files are deleted:
a flood from many browser ids can stop uploads for a while, never fill the disk the database lives on.

In memory, per process: entries older than the window are dropped as time passes. Owner ids are free, so
the entries of one window are capped too (``MAX_ENTRIES``, ~10 MB): past it uploads wait like a full folder.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass

MAX_ENTRIES = 100_000
BUSY = "The server holds as many uploads as it can; try again later."


@dataclass(frozen=True)
class QuotaLimits:
    window_s: float
    bytes_per_window: int
    files_per_window: int
    folder_bytes: int


class UploadQuota:
    def __init__(self, limits: QuotaLimits, *, clock: Callable[[], float]) -> None:
        self.limits = limits
        self._clock = clock
        self._log: deque[tuple[float, str, int, int]] = deque()  # (when, owner, bytes, files), oldest first
        self._bytes: Counter[str] = Counter()
        self._files: Counter[str] = Counter()
        self.folder_bytes = 0  # measured by the last sweep
        self._since_sweep = 0  # admitted after it

    def admit(self, owner: str, size: int) -> tuple[str, int] | None:
        """Take ``size`` bytes of ``owner``'s quota; or why not and the seconds to wait."""
        now = self._clock()
        self._expire(now)
        limits = self.limits
        if (
            self.folder_bytes + self._since_sweep + size > limits.folder_bytes
            or len(self._log) >= MAX_ENTRIES
        ):
            return BUSY, math.ceil(limits.window_s)
        if self._files[owner] >= limits.files_per_window:
            return self._refusal(owner, now, f"{limits.files_per_window} files")
        if self._bytes[owner] + size > limits.bytes_per_window:
            return self._refusal(owner, now, _size(limits.bytes_per_window))
        self._add(now, owner, size, 0)
        self._since_sweep += size
        return None

    def uploaded(self, owner: str, files: int) -> None:
        """Count the files an admitted upload stored."""
        self._add(self._clock(), owner, 0, files)

    def swept(self, folder_bytes: int) -> None:
        """The folder's size as a sweep just measured it (an upload written while the sweep ran may be missed
        once: a few requests' bytes, until the next sweep)."""
        self.folder_bytes = folder_bytes
        self._since_sweep = 0

    def _refusal(self, owner: str, now: float, what: str) -> tuple[str, int]:
        first = next((when for when, who, _, _ in self._log if who == owner), now)
        wait = max(1, math.ceil(first + self.limits.window_s - now))
        window_min = max(1, round(self.limits.window_s / 60))
        return (
            f"Upload limit reached ({what} per {window_min} minutes); try again in {wait_text(wait)}.",
            wait,
        )

    def _add(self, now: float, owner: str, size: int, files: int) -> None:
        self._log.append((now, owner, size, files))
        self._bytes[owner] += size
        self._files[owner] += files

    def _expire(self, now: float) -> None:
        cutoff = now - self.limits.window_s
        while self._log and self._log[0][0] <= cutoff:
            _, owner, size, files = self._log.popleft()
            self._bytes[owner] -= size
            self._files[owner] -= files
            if self._bytes[owner] <= 0 and self._files[owner] <= 0:
                del self._bytes[owner], self._files[owner]


def wait_text(seconds: int) -> str:
    """A wait as a person reads it: "40 s", "59 min", "3 h" (rounded up: never sooner than it is)."""
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 2 * 3600:
        return f"{math.ceil(seconds / 60)} min"
    return f"{math.ceil(seconds / 3600)} h"


def _size(n: int) -> str:
    return f"{n / 2**20:g} MiB" if n >= 2**20 else f"{n:,} bytes"
