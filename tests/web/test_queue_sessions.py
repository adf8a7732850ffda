"""A running answer's stream survives other tabs joining (session 17; ``webapp/web/queuesessions.py``).

Gradio keeps tabs' messages in an LRU cache of 2,000 sessions: 2,100 joins under fresh session hashes (27 s
from one browser) pushed a running answer's tab out, and its stream ended with ``session_not_found``. Here the
page's cache is shrunk to ``CACHE`` so that ``FLOOD`` joins overfill it, as 2,001 would the real one.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.routing import Mount

from tests.support.gradio_queue import GradioQueue
from tests.support.live_app import LiveApp, module_live_app, module_upstream
from tests.support.scripted_upstream import Script, ScriptedUpstream
from tests.web.test_tab_binding import _generating

upstream = module_upstream()
CACHE, FLOOD = 20, 30


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream) -> Iterator[LiveApp]:
    with module_live_app(tmp_path_factory, upstream, "sessions") as live:
        yield live


def test_fresh_tabs_joining_do_not_end_a_running_answers_stream(
    app: LiveApp, upstream: ScriptedUpstream
) -> None:
    caches = [_sessions(route.app) for route in app.server_app.routes if isinstance(route, Mount)]
    for cache in caches:  # each page (a loopback request is moved to the page with the Audit tab)
        cache.max_size = cache.limit = CACHE  # Gradio's size; the size queuesessions keeps it within
    with app.client() as victim, app.client() as mallory:
        queue = GradioQueue(victim)
        submit = queue.fn_index("on_submit")
        upstream.push(Script(answer=["word "], endless=True, delay_s=0.01))
        event_id = queue.join(submit, [{"text": "count", "files": []}, None, "Instant"]).json()["event_id"]
        with queue.stream() as stream:
            lines = stream.iter_lines()
            assert _generating(lines, 1)
            flood = GradioQueue(mallory)
            load = flood.fn_index("on_load")
            for _ in range(FLOOD):
                flood.session_hash = secrets.token_hex(6)  # a new tab each time
                assert flood.join(load, [""]).status_code == 200
            assert _generating(lines, 40), "the running answer's stream ended"
            own_tab = {"session_hash": queue.session_hash, "fn_index": submit, "event_id": event_id}
            assert victim.post("/gradio_api/cancel", json=own_tab).status_code == 200
    longest = max(len(cache) for cache in caches)
    assert CACHE <= longest <= CACHE + 1  # idle tabs are still forgotten


def _sessions(gradio_app: Any) -> Any:
    return gradio_app.get_blocks()._queue.pending_messages_per_session
