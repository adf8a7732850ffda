"""The session cache's eviction rule (the HTTP side: tests/web/test_queue_sessions.py)."""

from collections import OrderedDict
from types import SimpleNamespace

import pytest
from gradio.utils import LRUCache

from webapp.web.queuesessions import install


def _queue(running: list[str]) -> SimpleNamespace:
    events = {f"e-{tab}": SimpleNamespace(session_hash=tab) for tab in running}
    return SimpleNamespace(pending_messages_per_session=LRUCache(2), event_ids_to_events=events)


def test_the_oldest_idle_tab_goes_a_running_one_never() -> None:
    queue = _queue(running=["a"])
    queue.pending_messages_per_session["a"] = "qa"
    install(queue)
    cache = queue.pending_messages_per_session
    cache["b"] = "qb"
    cache["c"] = "qc"  # full: b (idle) goes, not a (running)
    assert list(cache) == ["a", "c"]
    queue.event_ids_to_events["e-c"] = SimpleNamespace(session_hash="c")
    cache["d"] = "qd"  # every tab runs: the cache grows rather than end a stream
    assert list(cache) == ["a", "c", "d"]


def test_a_gradio_without_these_attributes_stops_the_start() -> None:
    with pytest.raises(RuntimeError):
        install(SimpleNamespace(pending_messages_per_session=OrderedDict(), event_ids_to_events={}))
