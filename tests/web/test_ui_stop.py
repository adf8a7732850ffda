"""Stop through Gradio's real queue: the answer is stored as interrupted by the time ``/cancel`` answers.

Gradio's ``/cancel`` cancels the task running the turn. When that task is inside the turn's generator
(waiting for the next words) the cancellation runs the turn's clean-up there; when it lands between two
updates (Gradio post-processing or sending the last one) the generator is suspended at a ``yield`` and Gradio
closes it with ``aclose()`` instead. Every generator between the handler and the pipeline must then be closed
in turn: one left to the garbage collector stores the interruption later, in the background, after Stop
already read the chat back.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from collections.abc import Iterator
from typing import Any

import gradio as gr
import pytest

from tests.support.gradio_queue import GradioQueue
from tests.support.live_app import LiveApp, live_app
from tests.support.scripted_upstream import Script, ScriptedUpstream
from webapp.web.ui import INSTANT


@pytest.fixture
def app(tmp_path: Any, upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveApp]:
    with live_app(tmp_path, upstream, monkeypatch) as live:
        live.service.guard.checks.moderator.wait_ready(300)  # type: ignore[attr-defined]  # the answer's first check needs the model
        yield live


def _park_first_words(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Gradio post-processes the first update that shows answer words forever: a Stop then lands between two
    updates, with the answer streaming."""
    parked = threading.Event()
    original = gr.Blocks.postprocess_data

    async def postprocess_data(self: gr.Blocks, block_fn: Any, predictions: Any, state: Any) -> Any:
        if getattr(block_fn, "name", None) == "on_submit" and "Once" in str(predictions):
            if not parked.is_set():
                parked.set()
                await asyncio.Event().wait()  # until /cancel cancels the task
        return await original(self, block_fn, predictions, state)

    monkeypatch.setattr(gr.Blocks, "postprocess_data", postprocess_data)
    return parked


def _last_answer(app: LiveApp) -> tuple[str, str]:
    with sqlite3.connect(app.data_dir / "railchat.db") as db:
        row = db.execute("SELECT role, status FROM messages ORDER BY id DESC LIMIT 1").fetchone()
    return tuple(row) if row else ("", "")


def _drain(queue: GradioQueue, event_id: str) -> None:
    """Read the page's event stream until the event completes (Gradio's queue waits for a reader)."""
    with queue.stream(timeout_s=120) as stream:
        for line in stream.iter_lines():
            message = json.loads(line[5:]) if line.startswith("data:") else {}
            if message.get("msg") == "process_completed" and message.get("event_id") == event_id:
                return


def test_stop_between_two_updates_stores_the_interruption_before_cancel_answers(
    app: LiveApp, upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    parked = _park_first_words(monkeypatch)
    upstream.push(Script(answer=["Once upon a time. "], endless=True, delay_s=0.01))
    with app.client() as client:
        queue = GradioQueue(client)
        fn_index = queue.fn_index("on_submit")
        joined = queue.join(fn_index, [{"text": "Tell me a story", "files": []}, None, INSTANT])
        event_id = joined.json()["event_id"]
        reader = threading.Thread(target=_drain, args=(queue, event_id))
        reader.start()
        try:
            assert parked.wait(60), "the answer never showed its first words"
            body = {"event_id": event_id, "session_hash": queue.session_hash, "fn_index": fn_index}
            assert client.post("/gradio_api/cancel", json=body).status_code == 200
            assert _last_answer(app) == ("assistant", "interrupted")
        finally:
            reader.join(30)
