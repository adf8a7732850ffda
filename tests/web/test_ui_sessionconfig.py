"""A tab's events through Gradio's real queue keep no copy of the block configs they update."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import pytest
from gradio.blocks import BlocksConfig
from gradio.state_holder import SessionState

from tests.support.gradio_queue import GradioQueue
from tests.support.live_app import LiveApp, live_app
from tests.support.scripted_upstream import ScriptedUpstream


@pytest.fixture
def app(tmp_path: Any, upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveApp]:
    with live_app(tmp_path, upstream, monkeypatch) as live:
        yield live


def _after_submit(queue: GradioQueue) -> int:
    """An event the page runs after each message (no model, no moderation): the first chained to submit. It
    sets a prop (the input box opened again) and values (the meter, the chat list)."""
    types = {c["id"]: c.get("type") for c in queue.config["components"]}
    deps = queue.dependencies()
    submit = next(
        d for d in deps if any(types.get(t) == "multimodaltextbox" and e == "submit" for t, e in d["targets"])
    )
    return int(next(d["id"] for d in deps if d.get("trigger_after") == submit["id"]))


def test_a_tabs_events_build_no_config_for_the_session_copy(
    app: LiveApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions: list[SessionState] = []
    start_session = SessionState.__init__

    def recording(self: SessionState, blocks: Any) -> None:
        start_session(self, blocks)
        sessions.append(self)

    monkeypatch.setattr(SessionState, "__init__", recording)
    with app.client() as client:
        queue = GradioQueue(client)
        fn_index = _after_submit(queue)
        built: list[str] = []  # who asked for each config
        original = BlocksConfig.config_for_block

        def counting(_id: int, rendered_ids: list[int], block: Any, renderable: Any = None) -> dict[str, Any]:
            built.append(inspect.stack()[1].function)
            return original(_id, rendered_ids, block, renderable)

        monkeypatch.setattr(BlocksConfig, "config_for_block", staticmethod(counting))
        data = [(c.get("props") or {}).get("value") for c in queue.components().values()]
        dep = next(d for d in queue.dependencies() if d["id"] == fn_index)
        for _ in range(2):  # the second time every output block is in the session already
            out = queue.outputs(fn_index, [data[list(queue.components()).index(i)] for i in dep["inputs"]])
            assert len(out) == len(dep["outputs"])
        # the one reader of the copy is closed
        closed = client.get("/gradio_api/deep_link", params={"session_hash": queue.session_hash})
        assert closed.status_code == 404
    [session] = sessions  # the tab's, made by its first event
    assert len(session.blocks_config.blocks) > 20  # the whole chat page, not a stub
    # before: the box's config rebuilt (API schema included) for its prop update, and every block the events
    # read or wrote configured for the copy; what is left is Gradio's own `__setitem__`, for a block the
    # session did not hold yet or one an update replaced
    assert "_update_config" not in built and "_update_value_in_config" not in built
    assert set(built) <= {"__setitem__"}
    assert all(key in session.blocks_config.blocks for key in session.config_values)
