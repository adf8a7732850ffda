"""Deleting old uploads (the HTTP side: tests/web/test_upload_quota.py)."""

import os
from pathlib import Path

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


def test_a_sweep_runs_at_most_every_interval_and_reports_what_stays(tmp_path: Path) -> None:
    _file(tmp_path / "h" / "a.png", 5, 1000.0)
    now, measured = [1000.0], []
    sweeper = Sweeper(tmp_path, ttl_s=50.0, interval_s=10.0, clock=lambda: now[0], measured=measured.append)
    assert sweeper.due()
    sweeper.run()
    assert not sweeper.due()
    now[0] = 1060.0
    assert sweeper.due()
    sweeper.run()
    assert measured == [5, 0]
