from __future__ import annotations

import json
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from tests.support.scripted_upstream import Script, ScriptedUpstream
from webapp.upstream.client import Delta, LLMClient, StreamResult, ThinkTags, reasoning_of, server_root


def test_server_root_strips_v1() -> None:
    assert server_root("http://h:8000/v1") == "http://h:8000"
    assert server_root("http://h:8000/v1/") == "http://h:8000"
    assert server_root("https://h/api") == "https://h/api"


def test_reasoning_read_from_either_field() -> None:
    assert reasoning_of(SimpleNamespace(reasoning="a", model_extra={})) == "a"
    assert reasoning_of(SimpleNamespace(model_extra={"reasoning_content": "b"})) == "b"
    assert reasoning_of(SimpleNamespace(model_extra={})) == ""


async def test_models_tokenize_and_max_model_len(upstream) -> None:
    client = LLMClient(upstream.base_url)
    assert await client.first_model() == "scripted-model"
    assert await client.max_model_len("scripted-model") == 4096
    assert await client.count_tokens("scripted-model", [{"role": "user", "content": "x" * 40}]) == 17
    assert upstream.tokenize_calls[0]["messages"][0]["content"] == "x" * 40
    assert await client.health()


async def test_health_is_false_when_down(upstream) -> None:
    client = LLMClient(upstream.base_url)
    upstream.healthy = False
    assert not await client.health()


ENGINES = ["vllm", "sglang", "ktransformers", "nvidia"]


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Iterator[ScriptedUpstream]:
    server = ScriptedUpstream(engine=request.param).start()
    yield server
    server.stop()


async def stream(client: LLMClient, upstream: ScriptedUpstream) -> tuple[list[Delta], StreamResult]:
    result = StreamResult()
    deltas = [
        d
        async for d in client.stream_chat(
            upstream.model,
            [{"role": "user", "content": "hi"}],
            sampling={},
            extra_body={},
            max_tokens=50,
            result=result,
        )
    ]
    return deltas, result


async def test_any_engine_is_healthy_by_health_or_by_its_model_list(engine: ScriptedUpstream) -> None:
    client = LLMClient(engine.base_url)
    assert await client.health()
    assert await client.first_model() == engine.model
    engine.healthy = False
    assert not await client.health()


async def test_reasoning_arrives_apart_from_the_answer_whatever_the_engine(engine: ScriptedUpstream) -> None:
    engine.push(Script(reasoning=["Let me ", "think."], answer=["The answer ", "is 42."]))
    deltas, result = await stream(LLMClient(engine.base_url), engine)
    reasoning = "".join(d.text for d in deltas if d.kind == "reasoning")
    answer = "".join(d.text for d in deltas if d.kind == "answer")
    assert (reasoning.strip(), answer, result.finish_reason) == ("Let me think.", "The answer is 42.", "stop")


async def test_tool_call_fragments_come_back_with_id_name_and_arguments(engine: ScriptedUpstream) -> None:
    arguments = json.dumps({"city": "Oslo", "unit": "celsius"})
    engine.push(Script(answer=[], tool_calls=[("get_weather", arguments), ("get_time", "{}")]))
    deltas, result = await stream(LLMClient(engine.base_url), engine)
    calls = [d for d in deltas if d.kind == "tool_call"]
    assert result.finish_reason == "tool_calls"
    assert [d.name for d in calls if d.name] == ["get_weather", "get_time"]
    assert all(d.call_id for d in calls if d.name) and not [d for d in calls if d.call_id and not d.name]
    assert "".join(d.text for d in calls if d.index == 0) == arguments
    assert "".join(d.text for d in calls if d.index == 1) == "{}"
    assert [d for d in deltas if d.kind != "tool_call"] == []


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        (
            ["<th", "ink>I reason", "</thi", "nk>\n\nAnswer", " more"],
            [("reasoning", "I reason"), ("answer", "Answer more")],
        ),
        (["Hello", " <think>x</think>"], [("answer", "Hello <think>x</think>")]),
        (["\n", "<think>", "cut off"], [("reasoning", "cut off")]),
        (["<b>bold</b>"], [("answer", "<b>bold</b>")]),
    ],
)
def test_a_leading_think_block_in_the_content_is_reasoning(
    parts: list[str], expected: list[tuple[str, str]]
) -> None:
    tags = ThinkTags()
    deltas = [d for part in parts for d in tags.split(part)] + tags.flush()
    merged: list[tuple[str, str]] = []
    for d in deltas:
        if merged and merged[-1][0] == d.kind:
            merged[-1] = (d.kind, merged[-1][1] + d.text)
        else:
            merged.append((d.kind, d.text))
    assert merged == expected


async def test_a_finished_stream_leaves_its_connection_for_the_next_turn(upstream) -> None:
    client = LLMClient(upstream.base_url)
    for _ in range(3):
        await stream(client, upstream)
    assert len(upstream.requests) == 3
    assert len({r.client_port for r in upstream.requests}) == 1
    await client.aclose()


async def test_a_stream_closed_early_takes_its_connection_down(upstream) -> None:
    upstream.push(Script(answer=["word "] * 50, delay_s=0.01))
    client = LLMClient(upstream.base_url)
    result = StreamResult()
    deltas = client.stream_chat(
        upstream.model,
        [{"role": "user", "content": "hi"}],
        sampling={},
        extra_body={},
        max_tokens=50,
        result=result,
    )
    assert (await anext(deltas)).text == "word "
    await deltas.aclose()
    await stream(client, upstream)
    assert upstream.requests[0].client_port != upstream.requests[1].client_port
    await client.aclose()
