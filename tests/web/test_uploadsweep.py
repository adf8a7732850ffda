"""Deleting old uploads (the HTTP side: tests/web/test_upload_quota.py)."""

import os
import threading
from pathlib import Path

import anyio
import pytest

from webapp.web.uploadsweep import Sweeper, sweep


def _file(path: Path, size: int, mtime: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    os.utime(path, (mtime, mtime))
    os.utime(path.parent, (mtime, mtime))  # as old as its (first) file
    return path


def test_old_files_and_emptied_folders_go_new_ones_stay_and_are_measured(tmp_path: Path) -> None:
    up = tmp_path / "up"
    up.mkdir()
    os.utime(up, (100.0, 100.0))
    old = _file(up / "h1" / "old.png", 10, 100.0)
    new = _file(up / "h2" / "new.png", 7, 300.0)
    mark = _file(up / ".owners" / "tag", 0, 100.0)
    made_now = up / "h3"
    made_now.mkdir()  # Gradio makes a folder, then moves an upload into it
    outside = _file(tmp_path / "outside.txt", 3, 100.0)
    (up / "h2" / "link").symlink_to(outside)  # an old link goes, never what it points to
    os.utime(up / "h2" / "link", (100.0, 100.0), follow_symlinks=False)
    assert sweep(up, older_than=200.0) == 7
    assert not old.exists() and not mark.exists() and not (up / "h1").exists()
    assert new.exists() and outside.exists() and not (up / "h2" / "link").is_symlink()
    assert made_now.is_dir() and (up / ".owners").is_dir()
    assert up.is_dir()  # the folder itself stays


async def test_the_loop_sweeps_at_start_and_after_each_pause_and_reports_what_stays(tmp_path: Path) -> None:
    _file(tmp_path / "h" / "a.png", 5, 1000.0)
    now, measured, pauses = [1000.0], [], []

    async def pause(seconds: float) -> None:
        pauses.append(seconds)
        if len(pauses) == 1:
            now[0] = 1060.0  # a minute passes: the file is older than the TTL now
            return
        raise anyio.get_cancelled_exc_class()  # the app shuts down in its second pause

    sweeper = Sweeper(tmp_path, ttl_s=50.0, interval_s=10.0, clock=lambda: now[0], measured=measured.append)
    with pytest.raises(anyio.get_cancelled_exc_class()):
        await sweeper.run(pause=pause)
    assert measured == [5, 0] and pauses == [10.0, 10.0]


async def test_a_shutdown_during_a_walk_waits_for_it_and_keeps_its_measure(tmp_path: Path) -> None:
    """The walk runs in a thread a cancel cannot stop; shielded, its measure is reported all the same."""
    _file(tmp_path / "h" / "a.png", 5, 1000.0)
    walking, finish, measured = threading.Event(), threading.Event(), []

    def slow_clock() -> float:  # read by the walk, in its thread
        walking.set()
        assert finish.wait(10)
        return 2000.0

    sweeper = Sweeper(tmp_path, ttl_s=50.0, interval_s=10.0, clock=slow_clock, measured=measured.append)
    shutdown = anyio.CancelScope()

    async def serve() -> None:
        with shutdown:
            await sweeper.run(pause=anyio.sleep)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(serve)
        await anyio.to_thread.run_sync(walking.wait)
        shutdown.cancel()  # the app's shutdown, half-way through the walk
        finish.set()
    assert measured == [0]  # the walk ended (the old file gone) and its measure was reported
    assert not (tmp_path / "h").exists()


async def test_a_failing_walk_does_not_end_the_loop(tmp_path: Path) -> None:
    calls: list[int] = []

    def clock() -> float:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("the disk hiccups")
        return 0.0

    async def pause(seconds: float) -> None:
        if len(calls) >= 2:
            raise anyio.get_cancelled_exc_class()

    measured: list[int] = []
    sweeper = Sweeper(tmp_path, ttl_s=50.0, interval_s=10.0, clock=clock, measured=measured.append)
    with pytest.raises(anyio.get_cancelled_exc_class()):
        await sweeper.run(pause=pause)
    assert measured == [0]  # the second walk ran and reported
