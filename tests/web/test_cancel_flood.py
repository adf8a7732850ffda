"""A tab's Stop survives a flood of other events (session 17): who may cancel is read from Gradio's live queue.

The doors used to remember the last 50,000 (event id -> tab) joins in a record of their own; a visitor who
joined that many cheap events pushed a victim's running turn out of it, and the victim's own Stop was then
refused (404) while its answer streamed on. Now the doors ask the running queue, which holds every event
that can still be stopped and nothing else, so no number of other events changes whose Stop works.

50,001 joins take ~11 minutes here (~78 a second on this machine), so the flood is ``FLOOD`` joins from
``BROWSERS`` browsers; with the old record shrunk below ``FLOOD`` this test failed (404 on the victim's Stop).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.gradio_queue import GradioQueue
from tests.support.live_app import LiveApp, module_live_app, module_upstream
from tests.support.scripted_upstream import Script, ScriptedUpstream
from tests.web.test_tab_binding import _generating

upstream = module_upstream()
FLOOD = 1_000
BROWSERS = 10  # a browser id costs nothing: drop the cookie, get another


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream) -> Iterator[LiveApp]:
    with module_live_app(tmp_path_factory, upstream, "flood") as live:
        yield live


def test_a_flood_of_joins_does_not_take_a_tabs_stop_away(app: LiveApp, upstream: ScriptedUpstream) -> None:
    with app.client() as victim:
        queue = GradioQueue(victim)
        upstream.push(Script(answer=["word "], endless=True, delay_s=0.01))
        own_tab = queue.join_turn("count")
        with queue.stream() as stream:
            lines = stream.iter_lines()
            assert _generating(lines, 1)
            joined = [_flood(app, FLOOD // BROWSERS) for _ in range(BROWSERS)]
            assert sum(joined) == FLOOD  # every join was taken (none refused as queue_full)
            with app.client() as mallory:
                other_tab = {**own_tab, "session_hash": GradioQueue(mallory).session_hash}
                assert mallory.post("/gradio_api/cancel", json=other_tab).status_code == 404
            assert _generating(lines, 20), "another tab's /cancel stopped the answer"
            assert victim.post("/gradio_api/cancel", json=own_tab).status_code == 200
            assert not _generating(lines, 1000)  # the tab's own Stop ended it


def _flood(app: LiveApp, joins: int) -> int:
    """Join ``joins`` cheap events from a fresh browser; how many the queue took."""
    with app.client() as browser:
        flood = GradioQueue(browser)
        load = flood.fn_index("on_load")
        return sum(flood.join(load, [""]).status_code == 200 for _ in range(joins))
