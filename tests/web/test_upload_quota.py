"""Uploads over time (session 17): a quota per owner and for the folder, and old uploads deleted.

Gradio's upload route keeps every file it receives; the doors capped one request (413) but a visitor could
upload again and again, for ever, and nothing was ever deleted. Through the real upload route, with the
app's clock injected (no sleeps): an owner past its bytes or files of a window gets 429 with the wait,
others do not; browsers together stop at the folder cap; files older than the TTL (marks included) are
deleted at the next sweep, while a chat that sent one still shows its image from the database.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.gradio_queue import GradioQueue, browser_owner
from tests.support.live_app import LiveApp, live_app
from tests.support.scripted_upstream import ScriptedUpstream
from tests.support.ticks import ManualTicks
from tests.web.test_uploads import png
from webapp.web import uploadsweep
from webapp.web.uploads import OWNERS

WINDOW_S = 3600.0
TTL_S = 7200.0


class Clock:
    def __init__(self) -> None:
        self.now = time.time()  # file times are real: the app's clock starts at the wall clock

    def __call__(self) -> float:
        return self.now


def _upload(live: LiveApp, client: httpx.Client, color: int) -> httpx.Response:
    return client.post("/gradio_api/upload", files={"files": ("pic.png", png((color, 0, 0)), "image/png")})


def _app(
    tmp: Path,
    upstream: ScriptedUpstream,
    monkeypatch: pytest.MonkeyPatch,
    clock: Clock,
    ticks: ManualTicks | None = None,
    **limits: Any,
) -> Any:
    settings = {"upload_window_s": WINDOW_S, "upload_ttl_s": TTL_S, "upload_sweep_s": 60.0, **limits}
    pause = ticks or ManualTicks()  # the sweep runs once at start, then only when a test ticks
    return live_app(tmp, upstream, monkeypatch, clock=clock, sweep_pause=pause, **settings)


def test_an_owner_past_its_files_of_a_window_waits_others_do_not(
    tmp_path: Path, upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock()
    with _app(tmp_path, upstream, monkeypatch, clock, upload_files_per_window=3) as live:
        with live.client() as mallory, live.client() as alice:
            assert [_upload(live, mallory, c).status_code for c in range(3)] == [200] * 3
            refused = _upload(live, mallory, 3)
            assert refused.status_code == 429
            # The page's toast shows the body as it is (session 18: it showed JSON): one sentence.
            assert refused.headers["content-type"].startswith("text/plain")
            assert refused.text == "Upload limit reached (3 files per 60 minutes); try again in 60 min."
            assert refused.headers["retry-after"] == str(int(WINDOW_S))
            assert _upload(live, alice, 4).status_code == 200  # another owner's quota
            clock.now += WINDOW_S - 10
            assert _upload(live, mallory, 5).status_code == 429
            soon = _upload(live, mallory, 5)
            assert int(soon.headers["retry-after"]) <= 10 and soon.text.endswith("try again in 10 s.")
            clock.now += 11
            assert _upload(live, mallory, 6).status_code == 200  # a new window


def test_an_owner_past_its_bytes_of_a_window_waits(
    tmp_path: Path, upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock()
    request = len(png((0, 0, 0))) + 200  # one upload's form, roughly
    with _app(tmp_path, upstream, monkeypatch, clock, upload_bytes_per_window=3 * request) as live:
        with live.client() as mallory:
            codes = [_upload(live, mallory, c).status_code for c in range(6)]
            assert codes[:2] == [200, 200] and codes[-1] == 429, codes
            refused = _upload(live, mallory, 9)
            assert f"Upload limit reached ({3 * request:,} bytes per 60 minutes)" in refused.text


def test_many_browsers_stop_at_the_folder_cap_until_old_files_are_deleted(
    tmp_path: Path, upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock, ticks = Clock(), ManualTicks()
    with _app(tmp_path, upstream, monkeypatch, clock, ticks, upload_folder_bytes=5_000) as live:
        codes = []
        for color in range(40):  # a fresh browser id each time: no owner's quota is ever reached
            with live.client() as browser:
                codes.append(_upload(live, browser, color).status_code)
        assert 200 in codes and codes[-1] == 429, codes
        with live.client() as browser:
            busy = _upload(live, browser, 99)
            assert busy.status_code == 429 and "as many uploads as it can" in busy.text
            clock.now += TTL_S + 1  # the files are old
            assert _upload(live, browser, 100).status_code == 429  # until the sweep deleted them
            ticks.tick()
            assert _upload(live, browser, 100).status_code == 200


def test_old_uploads_and_their_marks_are_deleted_the_chat_keeps_its_image(
    tmp_path: Path, upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock, ticks = Clock(), ManualTicks()
    with _app(tmp_path, upstream, monkeypatch, clock, ticks) as live, live.client() as alice:
        sent = live.upload(alice, "sent.png", png((1, 2, 3)))
        queue = GradioQueue(alice)
        submit = queue.fn_index("on_submit")
        result = queue.run(submit, [{"text": "what is this?", "files": [sent]}, None, "Instant"])
        assert result.completed is not None and result.completed["success"]
        marks = list((live.upload_dir / OWNERS).iterdir())
        assert Path(sent["path"]).is_file() and marks
        clock.now += TTL_S - 60
        live.upload(alice, "fresh.png", png((4, 5, 6)))
        ticks.tick()  # a sweep: nothing is old yet
        assert Path(sent["path"]).is_file() and all(mark.exists() for mark in marks)
        clock.now += 120  # every file so far is past the TTL by the app's clock
        ticks.tick()
        later = live.upload(alice, "later.png", png((7, 8, 9)))  # written after the sweep
        assert not Path(sent["path"]).exists()
        assert not any(mark.exists() for mark in marks)
        left = sorted(
            p.relative_to(live.upload_dir).parts[0] for p in live.upload_dir.rglob("*") if p.is_file()
        )
        assert left == sorted([OWNERS, Path(later["path"]).relative_to(live.upload_dir).parts[0]])
        assert alice.get(f"/gradio_api/file={later['path']}").content == png((7, 8, 9))
        assert alice.get(f"/gradio_api/file={sent['path']}").status_code == 404
        again = GradioQueue(alice).run(submit, [{"text": "and this?", "files": [sent]}, None, "Instant"])
        assert again.join_status == 400  # no longer nameable
        owner = browser_owner(alice)
        (chat,) = live.service.sessions.recent(owner)
        parts = live.service.sessions.transcript(owner, chat.id) or []
    assert [p.kind for p in parts].count("image") == 1  # the reopened chat shows it, from the database


def test_an_upload_never_waits_for_the_sweep_the_background_task_deletes_on_its_tick(
    tmp_path: Path, upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Session 18: the sweep (a walk of the whole upload folder) ran inside the upload POST that found it due,
    so that visitor's upload waited for the walk. Now uploads never walk; the app's own task does, on its tick."""
    clock, ticks = Clock(), ManualTicks()
    walks = []
    real_sweep = uploadsweep.sweep

    def counted(folder: Path, *, older_than: float) -> int:
        walks.append(older_than)
        return real_sweep(folder, older_than=older_than)

    monkeypatch.setattr(uploadsweep, "sweep", counted)
    with _app(tmp_path, upstream, monkeypatch, clock, ticks) as live, live.client() as alice:
        ticks.wait_paused()
        assert len(walks) == 1  # once at start, before any request
        old = live.upload(alice, "old.png", png((1, 1, 1)))
        clock.now += TTL_S + 3600  # old by far, and a sweep long due by the app's clock
        for color in range(3):
            live.upload(alice, f"new{color}.png", png((2, 2, color)))
        assert len(walks) == 1 and Path(old["path"]).is_file()  # no upload walked the folder
        ticks.tick()
        assert len(walks) == 2 and not Path(old["path"]).exists()  # the task's tick did
        assert alice.get(f"/gradio_api/file={old['path']}").status_code == 404
