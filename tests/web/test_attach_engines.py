"""Attach mode against other OpenAI-compatible engines (scripted): SGLang, KTransformers and a hosted
NVIDIA-style endpoint. Health, reasoning and the profile's thinking switch must work against each."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from fastapi.testclient import TestClient

from tests.support.paths import RAILS_DIR
from tests.support.scripted_upstream import Script, ScriptedUpstream
from tests.support.service import TEST_ALLOWLIST, api_app, make_service
from tests.support.threaded_server import ThreadedServer
from webapp.store import Store

ENGINES = ["sglang", "ktransformers", "nvidia"]


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Iterator[ScriptedUpstream]:
    server = ScriptedUpstream(engine=request.param).start()
    yield server
    server.stop()


@pytest.mark.parametrize(("profile", "key"), [("kimi-k2.5", "thinking"), ("qwen3", "enable_thinking")])
def test_reasoning_and_the_thinking_switch_work_against_each_engine(
    engine: ScriptedUpstream, guard, tmp_path: Path, profile: str, key: str
) -> None:
    service = make_service(Store(f"sqlite:///{tmp_path / 'a.db'}"), guard, engine, profile=profile)
    server = ThreadedServer(api_app(tmp_path, service)).start()
    try:
        client = openai.OpenAI(base_url=f"{server.url}/v1", api_key="x", max_retries=0, timeout=20)
        engine.push(Script(reasoning=["Six ", "sevens."], answer=["42"]), Script(answer=["Hi"]))
        thought = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "6*7?"}], extra_body={"thinking": True}
        )
        message = thought.choices[0].message
        assert (message.model_extra["reasoning"].strip(), message.content) == ("Six sevens.", "42")
        client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], extra_body={"thinking": False}
        )
        assert [b["chat_template_kwargs"] for b in engine.chat_bodies] == [{key: True}, {key: False}]
    finally:
        server.stop()


@pytest.mark.parametrize("name", ["ktransformers", "nvidia"])
def test_healthz_uses_the_model_list_when_the_engine_has_no_health_endpoint(
    tmp_path: Path, name: str
) -> None:
    from webapp.config import load_settings
    from webapp.web.app import Upstream, build_service, create_app

    upstream = ScriptedUpstream(engine=name).start()  # type: ignore[arg-type]
    try:
        settings = load_settings(
            data_dir=tmp_path, llm_url=upstream.base_url, rails=RAILS_DIR, url_allowlist=TEST_ALLOWLIST
        )
        service = build_service(settings, Upstream(upstream.base_url), served_model=upstream.model)
        with TestClient(create_app(settings, service), base_url="http://127.0.0.1") as client:
            assert client.get("/healthz").json()["upstream"] == "ok"
            upstream.healthy = False
            assert client.get("/healthz").status_code == 503
    finally:
        upstream.stop()


def test_tool_calls_come_back_in_openais_shape_whatever_the_engine(
    engine: ScriptedUpstream, guard, tmp_path: Path
) -> None:
    service = make_service(Store(f"sqlite:///{tmp_path / 'a.db'}"), guard, engine)
    server = ThreadedServer(api_app(tmp_path, service)).start()
    try:
        client = openai.OpenAI(base_url=f"{server.url}/v1", api_key="x", max_retries=0, timeout=20)
        engine.push(Script(answer=[], tool_calls=[("get_time", '{"zone": "Europe/Oslo"}')]))
        completion = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Time?"}]
        )
        (call,) = completion.choices[0].message.tool_calls or []
        assert (call.function.name, call.function.arguments) == ("get_time", '{"zone": "Europe/Oslo"}')
        assert completion.choices[0].finish_reason == "tool_calls"
    finally:
        server.stop()
