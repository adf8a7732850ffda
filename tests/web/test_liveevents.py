"""Who may cancel an event, read from a Gradio queue (the HTTP side: tests/web/test_cancel_flood.py)."""

from types import SimpleNamespace

from webapp.web.liveevents import LiveEvents, tab_holds


def _blocks(pending: dict[str, set[str]], running: dict[str, str]) -> object:
    events = {event: SimpleNamespace(session_hash=tab) for event, tab in running.items()}
    return SimpleNamespace(
        _queue=SimpleNamespace(pending_event_ids_session=pending, event_ids_to_events=events)
    )


def test_only_the_tab_the_queue_holds_an_event_under_may_cancel_it() -> None:
    blocks = _blocks({"tab-a": {"e1"}}, {"e2": "tab-a"})
    assert tab_holds(blocks, "e1", "tab-a") and tab_holds(blocks, "e2", "tab-a")  # delivered or not yet
    assert not tab_holds(blocks, "e1", "tab-b") and not tab_holds(blocks, "e2", "tab-b")
    assert not tab_holds(blocks, "e3", "tab-a")  # finished: nothing left to cancel


def test_odd_values_and_an_unknown_queue_refuse() -> None:
    blocks = _blocks({"tab-a": {"e1"}}, {})
    assert not tab_holds(blocks, ["e1"], "tab-a") and not tab_holds(blocks, "e1", None)
    assert not tab_holds(blocks, {"e1": 1}, ["tab-a"])  # unhashable values do not raise
    assert not tab_holds(object(), "e1", "tab-a")  # a Gradio release without these attributes: fail closed


def test_the_page_a_path_belongs_to_is_asked() -> None:
    pages = {"/": _blocks({"tab-a": {"e1"}}, {}), "/audit": _blocks({}, {})}
    live = LiveEvents(lambda path: pages["/audit" if path.startswith("/audit/") else "/"])
    assert live.joined("/gradio_api/cancel", "e1", "tab-a")
    assert not live.joined("/audit/gradio_api/cancel", "e1", "tab-a")
