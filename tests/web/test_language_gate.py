"""A message or answer in a language the moderation cannot read is refused through the real HTTP API and the
real Gradio queue: the input before the model runs (the message stored, the refusal stored as its blocked
answer), the output streamed, with the chatter told which language the rails could not read."""

from __future__ import annotations

import json

import pytest

from tests.support.gradio_queue import GradioQueue, browser_owner
from tests.support.live_app import LiveApp, module_live_app, module_upstream
from tests.support.scripted_upstream import Script, ScriptedUpstream

upstream = module_upstream()
GERMAN = ["Ich werde ", "dich heute ", "Nacht finden ", "und umbringen."]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream):
    with module_live_app(tmp_path_factory, upstream, "language") as live:
        yield live


def test_api_input_in_french_is_refused_before_the_model_runs(
    app: LiveApp, upstream: ScriptedUpstream
) -> None:
    before = len(upstream.requests)
    with app.client() as client:
        response = client.post(
            "/v1/chat/completions",
            json={"model": "any", "messages": [{"role": "user", "content": "Je vais te tuer ce soir."}]},
        )
    body = response.json()
    assert body["choices"][0]["finish_reason"] == "content_filter"
    rails = body["guardrails"]
    assert rails["stage"] == "input" and rails["rail"] == "moderation"
    assert rails["reason"] == "the safety rails here can only read English; your message was in French"
    assert len(upstream.requests) == before
    stored = app.service.store.messages(response.headers["x-session-id"])
    assert [(m.role, m.status) for m in stored] == [("user", "complete"), ("assistant", "blocked")]
    assert stored[0].content == "Je vais te tuer ce soir."  # kept for reviewers


def test_api_streamed_answer_in_german_ends_with_content_filter(
    app: LiveApp, upstream: ScriptedUpstream
) -> None:
    upstream.push(Script(answer=GERMAN))
    body = {"model": "any", "stream": True, "messages": [{"role": "user", "content": "Say something."}]}
    with app.client() as client, client.stream("POST", "/v1/chat/completions", json=body) as response:
        events = [json.loads(line[5:]) for line in response.iter_lines() if line.startswith("data: {")]
    shown = "".join(e["choices"][0]["delta"].get("content") or "" for e in events if e.get("choices"))
    final = events[-1]
    assert final["choices"][0]["finish_reason"] == "content_filter"
    assert final["guardrails"]["stage"] == "output"
    assert "this answer was in German" in final["guardrails"]["reason"]
    assert "umbringen" not in shown


def _submit(app: LiveApp, text: str) -> tuple[str, str]:
    """Send ``text`` from a fresh browser tab through the Gradio queue: (everything the tab received, owner)."""
    with app.client() as client:
        queue = GradioQueue(client)
        queue.outputs(queue.fn_index("on_load"), [""])
        result = queue.run(queue.fn_index("on_submit"), [{"text": text, "files": []}, None, "Instant"])
        owner = browser_owner(client)
    assert result.completed is not None and result.completed["success"], result.raw[-500:]
    return json.dumps(result.completed["output"]), owner


def test_ui_input_in_russian_is_refused_and_stored_blocked(app: LiveApp, upstream: ScriptedUpstream) -> None:
    before = len(upstream.requests)
    shown, owner = _submit(app, "Все евреи должны умереть.")
    assert "can only read English; your message was in Russian" in shown
    assert len(upstream.requests) == before
    session = app.service.store.list_sessions(owner=owner, limit=1)[0]
    stored = app.service.store.messages(session.id)
    assert [(m.role, m.status) for m in stored] == [("user", "complete"), ("assistant", "blocked")]


def test_ui_answer_in_german_is_replaced_by_the_refusal(app: LiveApp, upstream: ScriptedUpstream) -> None:
    upstream.push(Script(answer=GERMAN))
    shown, owner = _submit(app, "Say something.")
    assert "can only read English; this answer was in German" in shown
    assert "umbringen" not in shown
    session = app.service.store.list_sessions(owner=owner, limit=1)[0]
    stored = app.service.store.messages(session.id)
    assert [(m.role, m.status) for m in stored] == [("user", "complete"), ("assistant", "blocked")]
    assert "umbringen" in stored[-1].content  # what the model sent, kept for reviewers
