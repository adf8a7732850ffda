"""Gradio events with payloads the page never sends (attack pass, issue 14), through the real queue: wrong
types end in an answer, not an exception in a handler; browser-only events are not on the server's list."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.gradio_queue import GradioQueue
from tests.support.live_app import LiveApp, module_live_app, module_upstream
from tests.support.scripted_upstream import ScriptedUpstream

upstream = module_upstream()


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream) -> Iterator[LiveApp]:
    with module_live_app(tmp_path_factory, upstream, "payloads") as live:
        yield live


@pytest.mark.parametrize("api_name", ["on_rename", "on_search"])
@pytest.mark.parametrize("value", [None, 12, ["a"], {"text": "a"}, True])
def test_a_text_input_of_another_type_is_read_as_no_text(app: LiveApp, api_name: str, value: Any) -> None:
    with app.client() as client:
        queue = GradioQueue(client)
        # The chat's event of that name (the open app's page also has the Audit tab's search)
        dep = next(
            d for d in queue.dependencies() if d["api_name"].startswith(api_name) and len(d["inputs"]) == 2
        )
        result = queue.run(dep["id"], [value, None])
    assert result.completed is not None and result.completed["success"], result.raw[-300:]


def test_browser_only_events_cannot_be_joined(app: LiveApp) -> None:
    """Events that run in the browser only (no server function) made Gradio raise when joined by hand."""
    with app.client() as client:
        queue = GradioQueue(client)
        browser_only = [d["id"] for d in queue.dependencies() if not d.get("backend_fn", True)]
        assert browser_only
        for fn_index in browser_only:
            assert queue.join(fn_index, []).status_code == 404


@pytest.mark.parametrize(
    "route", ["/gradio_api/queue/join", "/gradio_api/cancel", "/gradio_api/reset", "/login"]
)
def test_json_nested_past_the_recursion_limit_is_a_400(app: LiveApp, route: str) -> None:
    """5,000 brackets (10 kB) made Gradio's parser raise: a 500 on every JSON route, anonymous."""
    body = "[" * 5000 + "]" * 5000
    with app.client() as client:
        client.get("/")
        response = client.post(route, content=body, headers={"Content-Type": "application/json"})
        assert response.status_code == 400, response.text[:200]
        assert "nested too deeply" in response.text
        # the same route still reads an ordinary body: a list is Gradio's own 422, not our refusal
        assert client.post(route, json=[], headers={"Content-Type": "application/json"}).status_code != 400
