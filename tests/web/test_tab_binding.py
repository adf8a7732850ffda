"""A tab's session_hash is no key to it from another browser (attack pass, issue 14): Gradio keys a tab's state
and its event stream by that hash alone, so whoever learned it read every answer the tab streamed."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.support.gradio_queue import GradioQueue
from tests.support.live_app import LiveApp, module_live_app, module_upstream
from tests.support.scripted_upstream import Script, ScriptedUpstream

upstream = module_upstream()
SECRET = "lighthouse-keeper-7"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream) -> Iterator[LiveApp]:
    with module_live_app(tmp_path_factory, upstream, "tabs") as live:
        yield live


def read_stream(client: httpx.Client, session_hash: str) -> str:
    text = ""
    try:
        with client.stream(
            "GET", "/gradio_api/queue/data", params={"session_hash": session_hash}, timeout=15
        ) as stream:
            for line in stream.iter_lines():
                text += line
                if "process_completed" in line:
                    break
    except httpx.HTTPError:
        pass  # Gradio closes the stream of a tab with nothing pending
    return text


def test_another_browser_with_the_same_session_hash_reads_nothing(
    app: LiveApp, upstream: ScriptedUpstream
) -> None:
    with app.client() as alice, app.client() as mallory:
        queue = GradioQueue(alice)
        upstream.push(Script(answer=[f"{SECRET} "] * 30, delay_s=0.02))
        join = queue.join(queue.fn_index("on_submit"), [{"text": "tell me", "files": []}, None, "Instant"])
        assert join.status_code == 200
        stolen = read_stream(mallory, queue.session_hash)
        own = read_stream(alice, queue.session_hash)
    assert SECRET not in stolen
    assert SECRET in own and "process_completed" in own  # the page itself works as before


def _generating(stream: Iterator[str], count: int) -> bool:
    """Whether ``count`` more updates of a running event arrive before it completes."""
    for line in stream:
        if '"process_completed"' in line:
            return False
        if '"process_generating"' in line:
            count -= 1
            if count == 0:
                return True
    return False


@pytest.mark.parametrize("hash_sent", ["her own tab's", "the tab's"])
def test_another_browser_cannot_cancel_a_tabs_turn_by_its_event_id(
    app: LiveApp, upstream: ScriptedUpstream, hash_sent: str
) -> None:
    """Gradio's /cancel stops whatever event id a body names: Mallory, knowing Alice's event id, stopped
    Alice's answer from a tab of her own (60 words streamed -> 18). The answer never ends by itself here, so
    it keeps streaming after her cancel only if the cancel did nothing; then Alice's own Stop still works."""
    with app.client() as alice, app.client() as mallory:
        queue = GradioQueue(alice)
        upstream.push(Script(answer=["word "], endless=True, delay_s=0.01))
        own_tab = queue.join_turn("count")
        with queue.stream() as stream:
            lines = stream.iter_lines()
            assert _generating(lines, 1)
            session_hash = (
                GradioQueue(mallory).session_hash if hash_sent == "her own tab's" else queue.session_hash
            )
            refused = mallory.post("/gradio_api/cancel", json={**own_tab, "session_hash": session_hash})
            assert refused.status_code == 404
            assert _generating(lines, 20), "another browser's /cancel stopped the tab's answer"
            assert alice.post("/gradio_api/cancel", json=own_tab).status_code == 200
            assert not _generating(lines, 1000)  # the tab's own Stop ended it


@pytest.mark.parametrize("key", ["session%5Fhash", "%73ession_hash", "session_has%68"])
def test_a_percent_encoded_session_hash_is_bound_too(app: LiveApp, key: str) -> None:
    """The router decodes the query's keys: an encoded 'session_hash' reached Gradio unbound (session 12)."""
    with app.client() as alice:
        queue = GradioQueue(alice)
        assert queue.join(queue.fn_index("on_load"), [""]).status_code == 200
        text = ""
        with alice.stream("GET", f"/gradio_api/queue/data?{key}={queue.session_hash}", timeout=15) as stream:
            for line in stream.iter_lines():
                text += line
                if "process_completed" in line or "session_not_found" in line:
                    break
    # bound like the plain spelling, the tab reads its own event; unbound, Gradio knew no such session
    assert "process_completed" in text and "session_not_found" not in text, text[:300]
