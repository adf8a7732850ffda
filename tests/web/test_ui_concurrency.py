"""As many UI turns stream at once as RAILCHAT_CONCURRENT_TURNS allows, through the real Gradio queue.

Gradio runs at most its thread count of events at once (40 for an app it did not launch) whatever the
concurrency limits say, and a turn is one event for its whole answer: with 44 turns allowed, the last four
waited for a whole answer before their first word."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.gradio_queue import GradioQueue
from tests.support.live_app import LiveApp, module_live_app, module_upstream
from tests.support.scripted_upstream import Script, ScriptedUpstream

TURNS = 44  # more than Gradio's 40

upstream = module_upstream()


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream):
    with module_live_app(tmp_path_factory, upstream, "concurrency", concurrent_turns=TURNS) as live:
        yield live


def test_every_allowed_turn_streams_at_once(app: LiveApp, upstream: ScriptedUpstream) -> None:
    upstream.push(*[Script(answer=["Once upon a time. "], endless=True, delay_s=0.05) for _ in range(TURNS)])
    # each turn, once its first words came, waits here for all the others: none ends before all started
    all_started = threading.Barrier(TURNS, timeout=60)

    def one_turn() -> bool:
        with app.client() as client:
            queue = GradioQueue(client)
            queue.outputs(queue.fn_index("on_load"), [""])
            cancel = queue.join_turn("Tell me a story")
            started = False
            with queue.stream(timeout_s=90) as stream:
                for line in stream.iter_lines():
                    if not started and "process_generating" in line and "Once upon" in line:
                        started = True
                        try:
                            all_started.wait()
                        except threading.BrokenBarrierError:
                            pass
                        client.post("/gradio_api/cancel", json=cancel)  # Stop, as the page sends it
                    if "process_completed" in line:
                        break
            return started and not all_started.broken

    with ThreadPoolExecutor(TURNS) as pool:
        results = list(pool.map(lambda _: one_turn(), range(TURNS)))
    assert results == [True] * TURNS
