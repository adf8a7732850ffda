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
    del queue.event_ids_to_events["e-c"], queue.event_ids_to_events["e-a"]
    cache["e"] = "qe"  # idle again: back within its size
    assert list(cache) == ["d", "e"]


def test_the_cache_keeps_its_own_class_and_behaviour() -> None:
    class Wrapping(LRUCache):  # as the UI queue's cache wraps each session's messages
        def __setitem__(self, key: str, value: str) -> None:
            super().__setitem__(key, value.upper())

    queue = SimpleNamespace(pending_messages_per_session=Wrapping(2), event_ids_to_events={})
    install(queue)
    queue.pending_messages_per_session["a"] = "qa"
    assert isinstance(queue.pending_messages_per_session, Wrapping)
    assert queue.pending_messages_per_session["a"] == "QA"


def test_a_gradio_without_these_attributes_stops_the_start() -> None:
    with pytest.raises(RuntimeError):
        install(SimpleNamespace(pending_messages_per_session=OrderedDict(), event_ids_to_events={}))
