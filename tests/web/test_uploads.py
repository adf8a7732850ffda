"""Upload ownership lives beside the uploads, under the app's key: it holds across restarts and workers, and
nobody without the key can claim a file."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from tests.support.gradio_queue import GradioQueue
from tests.support.live_app import live_app
from tests.support.scripted_upstream import ScriptedUpstream
from tests.support.users import sign_in, users_file
from webapp.web.ownership import COOKIE
from webapp.web.uploads import OWNERS, UploadLedger, is_upload


def png(color: tuple[int, int, int]) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), color).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def upload(tmp_path: Path) -> Path:
    path = tmp_path / "up" / ("a" * 64) / "pic.png"
    path.parent.mkdir(parents=True)
    path.write_bytes(png((1, 1, 1)))
    return path


def test_a_mark_made_by_one_worker_is_seen_by_another(upload: Path) -> None:
    root = upload.parents[1]
    UploadLedger(root, secret="k").record("alice", [str(upload)])
    other_worker = UploadLedger(root, secret="k")  # same data folder, same key, no shared memory
    assert other_worker.owns("alice", str(upload))
    assert other_worker.owns("alice", f"{root}/{'a' * 64}/../{'a' * 64}/pic.png")
    assert not other_worker.owns("mallory", str(upload))
    assert not other_worker.owns(None, str(upload))
    assert not UploadLedger(root, secret="another key").owns("alice", str(upload))


def test_marks_are_not_uploads_and_cannot_be_claimed(upload: Path) -> None:
    root = upload.parents[1]
    ledger = UploadLedger(root, secret="k")
    ledger.record("alice", [str(upload)])
    (mark,) = (root / OWNERS).iterdir()
    assert not is_upload(str(mark), root)
    ledger.record("mallory", [str(mark), "/etc/passwd", str(root), "https://evil.test/x"])
    assert not ledger.owns("mallory", str(mark)) and not ledger.owns("mallory", "/etc/passwd")
    assert [p.name for p in (root / OWNERS).iterdir()] == [mark.name]  # nothing recorded for mallory
    link = upload.parent / "link.png"
    link.symlink_to(mark)
    assert not ledger.owns("alice", str(link)) and not ledger.owns("mallory", str(link))


def test_a_browsers_upload_is_still_its_own_after_a_restart(
    tmp_path: Path, upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: the ledger lived in memory, so after a restart the page's own upload was refused."""
    with live_app(tmp_path, upstream, monkeypatch) as live, live.client() as alice:
        uploaded = live.upload(alice, "pic.png", png((7, 8, 9)))
        cookie = alice.cookies[COOKIE]
    with live_app(tmp_path, upstream, monkeypatch) as live:
        with live.client(cookies={COOKIE: cookie}) as alice, live.client() as mallory:
            assert alice.get(f"/gradio_api/file={uploaded['path']}").content == png((7, 8, 9))
            assert mallory.get(f"/gradio_api/file={uploaded['path']}").status_code == 404
            queue = GradioQueue(alice)
            result = queue.run(
                queue.fn_index("on_submit"), [{"text": "what is this?", "files": [uploaded]}, None, "Instant"]
            )
    assert result.completed is not None and result.completed["success"]
    assert any(
        part.get("type") == "image_url" for part in upstream.chat_bodies[-1]["messages"][-1]["content"]
    )


def test_an_upload_belongs_to_the_signed_in_user_not_to_the_browser(
    tmp_path: Path, upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under --auth-file, people who sign in one after the other in one browser profile share its cookie.
    Was: the upload was the browser's, so Bob was served Alice's image by its URL and could send it as his."""
    users = users_file(tmp_path, {"alice": "chatter", "bob": "chatter"})
    with live_app(tmp_path, upstream, monkeypatch, auth_file=users) as live, live.client() as browser:
        sign_in(browser, "alice")
        uploaded = live.upload(browser, "alice.png", png((3, 1, 4)))
        url = f"/gradio_api/file={uploaded['path']}"
        assert browser.get(url).content == png((3, 1, 4))
        cookie = browser.cookies[COOKIE]
        browser.get("/logout")
        sign_in(browser, "bob")
        assert browser.cookies[COOKIE] == cookie  # the same browser
        assert browser.get(url).status_code == 404
        queue = GradioQueue(browser)
        submit = queue.fn_index("on_submit")
        stolen = queue.run(submit, [{"text": "what is this?", "files": [uploaded]}, None, "Instant"])
        assert stolen.join_status == 400
        browser.get("/logout")
        sign_in(browser, "alice")
        assert browser.get(url).content == png((3, 1, 4))
        mine = GradioQueue(browser).run(
            submit, [{"text": "what is this?", "files": [uploaded]}, None, "Instant"]
        )
    assert mine.completed is not None and mine.completed["success"]
