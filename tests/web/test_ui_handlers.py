"""The chat page's turn events through the real Gradio queue: what Gradio does around the handlers per word."""

from __future__ import annotations

import json
from typing import Any

import anyio.to_thread
import pytest

from tests.support.gradio_queue import GradioQueue
from tests.support.live_app import module_live_app, module_upstream
from tests.support.scripted_upstream import Script, ScriptedUpstream

upstream = module_upstream()


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream):
    with module_live_app(tmp_path_factory, upstream, "handlers") as live:
        yield live


def test_a_streamed_turn_hands_no_update_to_a_worker_thread(app, upstream, monkeypatch) -> None:
    """Gradio post-processes each value of each update in a worker thread unless the event gives them
    post-processed: two thread hand-offs per word, a third of the UI path's busy samples at one stream."""
    handed_off: list[str] = []
    run_sync = anyio.to_thread.run_sync

    async def counted(func: Any, *args: Any, **kwargs: Any) -> Any:
        handed_off.append(getattr(func, "__qualname__", repr(func)))
        return await run_sync(func, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    upstream.push(Script(answer=[f"word{i} " for i in range(30)], delay_s=0.01))
    with app.client() as client:
        queue = GradioQueue(client)
        queue.outputs(queue.fn_index("on_load"), [""])
        handed_off.clear()
        result = queue.run(queue.fn_index("on_submit"), [{"text": "Tell me", "files": []}, None, "Instant"])

    assert result.completed is not None and result.completed["success"], result.raw[-500:]
    assert len([m for m in result.messages if m.get("msg") == "process_generating"]) >= 5
    assert "word29" in json.dumps(result.completed)
    assert [name for name in handed_off if "postprocess" in name] == []
    assert handed_off  # the counter saw Gradio's hand-offs (the inputs are pre-processed in one)


def test_the_input_box_is_locked_and_empty_while_the_answer_streams(app, upstream) -> None:
    upstream.push(Script(answer=["One. ", "Two. ", "Three."], delay_s=0.01))
    with app.client() as client:
        queue = GradioQueue(client)
        queue.outputs(queue.fn_index("on_load"), [""])
        result = queue.run(queue.fn_index("on_submit"), [{"text": "Count", "files": []}, None, "Instant"])

    updates = [m["output"]["data"] for m in result.messages if m.get("msg") == "process_generating"]
    first_box = updates[0][0]
    assert first_box["__type__"] == "update" and first_box["interactive"] is False
    assert first_box["value"] == {"text": "", "files": []}
    chat = result.completed["output"]["data"][1] if result.completed else None
    assert isinstance(chat, list) and [m["role"] for m in chat] == ["user", "assistant"]
    assert "Three." in json.dumps(chat[-1]["content"])
