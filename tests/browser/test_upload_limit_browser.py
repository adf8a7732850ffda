"""An upload the quota refuses reads as a sentence in the page's toast (session 18).

Gradio's page shows a refused upload as ``HTTP <status>: <body>``, body verbatim: the doors answered JSON, so a
visitor past the quota read ``HTTP 429: {"detail": "Upload limit reached ...; try again in 3598 s."}``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PIL import Image

from tests.browser.conftest import shot, start_app
from tests.support.scripted_upstream import ScriptedUpstream

FILES_PER_WINDOW = 2


@pytest.fixture(scope="module")
def app_url(browser_upstream: ScriptedUpstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app with a quota of two files an hour (each test's visitor is a fresh browser: its own quota)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.delenv("GRADIO_TEMP_DIR", raising=False)
        server = start_app(
            browser_upstream,
            tmp_path_factory.mktemp("quota"),
            "generic",
            upload_files_per_window=FILES_PER_WINDOW,
        )
        yield server.url + "/"
        server.stop()


def test_an_upload_past_the_quota_is_a_sentence_in_the_toast(page, tmp_path) -> None:
    for n in range(FILES_PER_WINDOW + 1):
        picture = tmp_path / f"pic{n}.png"
        Image.new("RGB", (32, 32), (40 * n, 0, 0)).save(picture)
        page.set_input_files("#input input[type=file]", str(picture))
        page.wait_for_timeout(600)
    toast = page.locator(".toast-body").last
    toast.wait_for(timeout=10_000)
    text = toast.inner_text()
    assert f"Upload limit reached ({FILES_PER_WINDOW} files per 60 minutes); try again in 60 min." in text
    assert not any(c in text for c in '{}"'), text  # no JSON
    shot(page, "upload-limit")
