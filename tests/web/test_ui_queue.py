"""The UI's Gradio queue is woken by work, not by a timer: idle, it waits; a pushed event, a freed slot and
closing wake it. Real events go through Gradio's own join and stream, with the backstop re-check turned off,
so a missed wake-up hangs the test instead of hiding behind a timer."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import gradio as gr
import httpx
import pytest
from fastapi import FastAPI
from gradio.queueing import Queue

from tests.support.gradio_queue import GradioQueue
from tests.support.threaded_server import ThreadedServer
from webapp.web.ui import queue as ui_queue
from webapp.web.ui.queue import WokenQueue


def _blocks(release: threading.Event) -> gr.Blocks:
    def held(text: str) -> str:
        release.wait(20)  # Gradio runs a sync function in a worker thread
        return text.upper()

    with gr.Blocks() as demo:
        box = gr.Textbox()
        out = gr.Textbox()
        box.submit(held, box, out, api_name="held")
    demo.queue(default_concurrency_limit=1)
    demo._queue = WokenQueue.replacing(demo._queue)
    return demo


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[ThreadedServer, threading.Event]]:
    monkeypatch.setattr(ui_queue, "IDLE_RECHECK_S", 3600.0)
    release = threading.Event()
    app = gr.mount_gradio_app(FastAPI(), _blocks(release), path="/")
    server = ThreadedServer(app).start()
    try:
        yield server, release
    finally:
        release.set()
        server.stop()


def test_events_beyond_the_limit_start_when_a_slot_frees(
    served: tuple[ThreadedServer, threading.Event],
) -> None:
    """Limit 1: the second event waits for the first to end; only the end of a job can start it."""
    server, release = served
    results: list[object] = []

    def one(text: str) -> None:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            queue = GradioQueue(client)
            result = queue.run(queue.fn_index("held"), [text], timeout_s=30)
            results.append(result.completed["output"]["data"][0] if result.completed else result.messages)

    threads = [threading.Thread(target=one, args=(t,)) for t in ("first", "second")]
    for thread in threads:
        thread.start()
    release.set()
    for thread in threads:
        thread.join(40)
    assert sorted(map(str, results)) == ["FIRST", "SECOND"]


async def test_an_idle_queue_waits_for_work_and_closing_ends_it() -> None:
    with gr.Blocks() as demo:
        gr.Textbox()
    demo.queue()
    queue = WokenQueue.replacing(demo._queue)
    queue.active_jobs = [None]
    task = asyncio.create_task(queue.start_processing())
    for _ in range(20):
        await asyncio.sleep(0)
    awaiting: Any = task.get_coro()
    waiting_in = []
    while awaiting is not None and hasattr(awaiting, "cr_code"):  # down the chain of awaited coroutines
        waiting_in.append(awaiting.cr_code.co_name)
        awaiting = awaiting.cr_await
    assert waiting_in[:2] == ["start_processing", "_wait_for_work"]
    assert "sleep" not in waiting_in
    assert not task.done()
    queue.close()
    await asyncio.wait_for(task, 5)
    assert queue.stopped


def test_a_stopped_event_ends_with_a_completion_the_page_can_apply() -> None:
    """Stop (``cancels=``): Gradio's /cancel ends the running event with a completion of its own. The page
    applies a completion's ``data`` to the event's outputs; without it the page's read throws and the chat
    keeps Gradio's "Error" label whenever that completion arrives after the page's own cancel finished."""

    async def count(text: str) -> AsyncIterator[str]:
        n = 0
        while True:
            n += 1
            yield f"{text} {n}"
            await asyncio.sleep(0.01)

    with gr.Blocks() as demo:
        box = gr.Textbox()
        out = gr.Textbox()
        stop = gr.Button()
        counting = box.submit(count, box, out, api_name="count")
        stop.click(None, None, None, cancels=[counting])
    demo.queue()
    demo._queue = WokenQueue.replacing(demo._queue)
    server = ThreadedServer(gr.mount_gradio_app(FastAPI(), demo, path="/")).start()
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            queue = GradioQueue(client)
            fn_index = queue.fn_index("count")
            event_id = queue.join(fn_index, ["n"]).json()["event_id"]
            completed: dict[str, Any] | None = None
            with queue.stream() as stream:
                for line in stream.iter_lines():
                    message = json.loads(line[5:]) if line.startswith("data:") else {}
                    if message.get("msg") == "process_generating" and completed is None:
                        body = {
                            "event_id": event_id,
                            "session_hash": queue.session_hash,
                            "fn_index": fn_index,
                        }
                        assert client.post("/gradio_api/cancel", json=body).status_code == 200
                        completed = {}
                    if message.get("msg") == "process_completed" and message.get("event_id") == event_id:
                        completed = message
                        break
    finally:
        server.stop()
    assert completed and completed["success"]
    assert completed["output"]["data"] == []  # applied by the page as "nothing changed"


def test_events_end_without_building_gradios_analytics_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    """Gradio rebuilds a pandas summary of its last 10,000 events at every event's end, for a monitoring
    dashboard railchat closes: CPU per turn that grew with the turns served. Here it is never built, and the
    records Gradio keeps for its own bookkeeping stay at ``ANALYTICS_KEPT``."""
    built: list[int] = []

    def counting_frame(records: Any) -> Any:
        built.append(len(records))
        raise AssertionError("the analytics summary was built")

    monkeypatch.setattr(Queue, "_get_df", staticmethod(counting_frame))
    monkeypatch.setattr(ui_queue, "ANALYTICS_KEPT", 3)
    release = threading.Event()
    release.set()
    demo = _blocks(release)
    server = ThreadedServer(gr.mount_gradio_app(FastAPI(), demo, path="/")).start()
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            queue = GradioQueue(client)
            fn_index = queue.fn_index("held")
            answers = [queue.run(fn_index, [f"turn {n}"], timeout_s=30).completed for n in range(5)]
    finally:
        server.stop()
    assert [a["output"]["data"][0] if a else None for a in answers] == [f"TURN {n}" for n in range(5)]
    assert built == []
    assert demo._queue.ANALYTICS_MAX_EVENTS == 3
    assert len(demo._queue.event_analytics) == 3
