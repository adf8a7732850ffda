"""Uploads are deleted a while after they were written: Gradio keeps every file it receives or caches, forever.

Everything in the private upload folder is Gradio's copy of something this app already has elsewhere or no
longer needs: an image a user attached (its bytes are stored with the message once sent; a reopened chat
shows it from the database, never from this folder), Gradio's cached copies of it for the page, and the
owner marks (``uploads.UploadLedger``) beside them. So every regular file, mark or not, older than the TTL
(by its modification time: Gradio rewrites an upload of the same bytes, a mark is touched at each upload)
is deleted, and the folders left empty with it. What this costs: an image attached and left unsent past the
TTL must be attached again, and the tab that sent an image shows it broken after the TTL (reloaded, it shows
the stored chip).

The sweep also measures what stays, for the folder cap (``uploadquota``). It walks the folder, so it runs in a
background task of the app's own (``Sweeper.run``, started and stopped with the app's lifespan), in a worker
thread, once at start and then every ``interval_s`` seconds. It ran inside the upload POST that found it due
until session 18: that visitor's upload waited for a walk of the whole folder.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

from webapp.web.uploads import OWNERS

log = logging.getLogger(__name__)


def sweep(folder: Path, *, older_than: float) -> int:
    """Delete every file under ``folder`` last modified before ``older_than`` (epoch seconds), and the folders
    that were as old and are empty now; return the bytes of the files that stay.

    A folder is judged by its time before the sweep: Gradio makes a folder, then moves an upload into it, so
    a folder made just now (while this runs in a thread) is never removed under it. The owner marks' folder
    stays too (``UploadLedger`` makes it once, then writes into it)."""
    old_dirs = [parent for parent, _, _ in os.walk(folder) if _mtime(parent) < older_than]
    kept = 0
    for parent, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(parent, name)
            try:
                info = os.lstat(path)
                if info.st_mtime < older_than:
                    os.unlink(path)
                elif stat.S_ISREG(info.st_mode):
                    kept += info.st_size
            except OSError:
                continue  # gone already, or in use by another sweep
    keep = {str(folder), str(folder / OWNERS)}
    for path in sorted(old_dirs, key=len, reverse=True):  # the deepest first
        if path not in keep:
            with contextlib.suppress(OSError):
                os.rmdir(path)  # only if empty
    return kept


def _mtime(path: str) -> float:
    try:
        return os.lstat(path).st_mtime
    except OSError:
        return float("inf")


class Sweeper:
    """``run()``: the sweep loop, reporting what stays to ``measured`` after each walk; ``sweep_now()``: one walk."""

    def __init__(
        self,
        folder: Path,
        *,
        ttl_s: float,
        interval_s: float,
        clock: Callable[[], float],
        measured: Callable[[int], None],
    ) -> None:
        self.folder = folder
        self.ttl_s = ttl_s
        self.interval_s = interval_s
        self._clock = clock
        self._measured = measured

    async def run(self, *, pause: Callable[[float], Awaitable[None]]) -> None:
        """Sweep now, then after each ``pause(interval_s)``, until cancelled (the app's shutdown).

        Each sweep is shielded from that cancellation, so a walk and its report are one step. The walk runs in a
        worker thread, which a cancel cannot stop: abandoned (``abandon_on_cancel``), it would go on deleting
        files while the app shuts down, or while the next app starts on the same folder; and a cancel that
        landed between the walk and its report would leave the quota counting files the walk had deleted
        (anyio's ``run_sync`` shields the thread alone, not what follows it). Shielded, a shutdown waits for
        the walk under way (one at most) and its report, and the cancel lands in the pause."""
        while True:
            with anyio.CancelScope(shield=True):
                await self.sweep_now()
            await pause(self.interval_s)

    async def sweep_now(self) -> None:
        """One walk, off the event loop; its measure is reported on the loop, where the quota is read."""
        try:
            kept = await anyio.to_thread.run_sync(self._walk)
        except Exception:  # the loop must outlive one bad walk: an upload folder is never swept again else
            log.exception("Sweeping the upload folder failed; trying again in %s s.", self.interval_s)
            return
        self._measured(kept)

    def _walk(self) -> int:
        return sweep(self.folder, older_than=self._clock() - self.ttl_s)
