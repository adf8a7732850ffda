"""A tab's first event through Gradio's real queue builds only the block configs its updates need."""

from __future__ import annotations

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
    """An event the page runs after each message (no model, no moderation): the first chained to submit."""
    types = {c["id"]: c.get("type") for c in queue.config["components"]}
    deps = queue.dependencies()
    submit = next(
        d for d in deps if any(types.get(t) == "multimodaltextbox" and e == "submit" for t, e in d["targets"])
    )
    return int(next(d["id"] for d in deps if d.get("trigger_after") == submit["id"]))


def test_a_new_tab_builds_the_configs_of_the_blocks_it_updates_only(
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
        built: list[int] = []
        original = BlocksConfig.config_for_block

        def counting(_id: int, rendered_ids: list[int], block: Any, renderable: Any = None) -> dict[str, Any]:
            built.append(_id)
            return original(_id, rendered_ids, block, renderable)

        monkeypatch.setattr(BlocksConfig, "config_for_block", staticmethod(counting))
        data = [(c.get("props") or {}).get("value") for c in queue.components().values()]
        dep = next(d for d in queue.dependencies() if d["id"] == fn_index)
        queue.outputs(fn_index, [data[list(queue.components()).index(i)] for i in dep["inputs"]])
    [session] = sessions  # the tab's, made by its first event
    blocks = len(session.blocks_config.blocks)
    assert blocks > 20  # the whole chat page, not a stub
    # before: every block of the page (64), then the outputs again
    assert 0 < len(set(built)) <= len(dep["outputs"]) < blocks
    for key in set(built):  # the configs it built are Gradio's own for the block, with the value updated
        assert _without_value(session.config_values[key]) == _without_value(
            original(key, [], session.blocks_config.blocks[key])
        )


def _without_value(config: dict[str, Any]) -> dict[str, Any]:
    return {**config, "props": {k: v for k, v in config.get("props", {}).items() if k != "value"}}
