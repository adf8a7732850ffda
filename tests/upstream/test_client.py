from __future__ import annotations

from types import SimpleNamespace

from webapp.upstream.client import LLMClient, reasoning_of, server_root


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
