"""The OpenAI-compatible API, driven by the official `openai` client against the app on a free port."""

from __future__ import annotations

import base64
import io
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import httpx
import openai
import pytest
from PIL import Image

from tests.support.scripted_upstream import Script, ScriptedUpstream
from tests.support.service import api_app, make_service
from tests.support.threaded_server import ThreadedServer
from webapp.store import Store
from webapp.turn.service import ChatService
from webapp.upstream.profiles import get_profile


@dataclass
class Running:
    url: str
    service: ChatService
    store: Store
    upstream: ScriptedUpstream

    def client(self, **kwargs: Any) -> openai.OpenAI:
        return openai.OpenAI(
            base_url=f"{self.url}/v1",
            api_key=kwargs.pop("api_key", "unused"),
            max_retries=0,
            timeout=20,
            **kwargs,
        )

    def post(
        self, body: Any, headers: dict[str, str] | None = None, raw: bytes | None = None, timeout: float = 20
    ) -> httpx.Response:
        content = raw if raw is not None else json.dumps(body).encode()
        return httpx.post(
            f"{self.url}/v1/chat/completions",
            content=content,
            timeout=timeout,
            headers={"content-type": "application/json", **(headers or {})},
        )


@pytest.fixture(scope="module")
def running(guard, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    tmp = tmp_path_factory.mktemp("api")
    upstream = ScriptedUpstream(max_model_len=32768).start()  # Kimi-sized: an image may cost 4,096 tokens
    store = Store(f"sqlite:///{tmp / 'api.db'}")
    service = make_service(store, guard, upstream, profile="kimi-k2.5")
    server = ThreadedServer(api_app(tmp, service)).start()
    url = server.url
    yield Running(url, service, store, upstream)
    server.stop()
    upstream.stop()


@pytest.fixture
def api(running: Running) -> Iterator[Running]:
    running.upstream.scripts.clear()
    running.upstream.requests.clear()
    running.service.profile = get_profile("kimi-k2.5")
    options = running.service.options
    yield running
    running.service.options = options


def png_data_url(color: str = "red") -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (32, 24), color).save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


def wait_for(condition: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.02)


# ---- happy paths --------------------------------------------------------------------------------------------


def test_models_lists_the_served_model(api: Running) -> None:
    models = api.client().models.list()
    assert [m.id for m in models.data] == [api.upstream.model]


def test_non_stream_completion_with_reasoning_usage_and_session(api: Running) -> None:
    api.upstream.push(Script(reasoning=["Six times ", "seven."], answer=["42"]))
    raw = api.client().chat.completions.with_raw_response.create(model="m", messages=user("6*7?"))
    completion = raw.parse()
    choice = completion.choices[0]
    assert choice.message.content == "42" and choice.finish_reason == "stop"
    assert choice.message.model_extra["reasoning"] == "Six times seven."
    assert completion.usage is not None and completion.usage.prompt_tokens == 10
    session_id = raw.headers["x-session-id"]
    stored = api.store.get_session(session_id)
    assert stored is not None and stored.owner == "api:local" and stored.client == "api"
    assert [m.content for m in api.store.messages(session_id)] == ["6*7?", "42"]


def test_stream_carries_reasoning_then_answer(api: Running) -> None:
    api.upstream.push(Script(reasoning=["Let me ", "think. "], answer=["The answer ", "is 42."]))
    stream = api.client().chat.completions.create(
        model="m", messages=user("q"), stream=True, stream_options={"include_usage": True}
    )
    reasoning, content, finish, usage = "", "", None, None
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            reasoning += (choice.delta.model_extra or {}).get("reasoning") or ""
            content += choice.delta.content or ""
            finish = choice.finish_reason or finish
    assert reasoning == "Let me think. " and content == "The answer is 42." and finish == "stop"
    assert usage is not None and usage.completion_tokens == 2


@pytest.mark.parametrize(
    ("profile", "extra", "expected"),
    [
        ("kimi-k2.5", {"thinking": True}, {"thinking": True}),
        ("kimi-k2.5", {"thinking": False}, {"thinking": False}),
        ("kimi-k2.5", {"chat_template_kwargs": {"thinking": False}}, {"thinking": False}),
        ("kimi-k2.5", {}, {"thinking": True}),  # thinking models think unless told not to
        ("kimi-k2.5", {"reasoning_effort": "none"}, {"thinking": False}),
        ("qwen3", {"thinking": True}, {"enable_thinking": True}),
        ("qwen3", {"chat_template_kwargs": {"enable_thinking": False}}, {"enable_thinking": False}),
    ],
)
def test_thinking_switch_reaches_upstream_as_the_profile_says(
    api: Running, profile: str, extra: dict[str, Any], expected: dict[str, bool]
) -> None:
    api.service.profile = get_profile(profile)
    api.client().chat.completions.create(model="m", messages=user("hi"), extra_body=extra)
    assert api.upstream.chat_bodies[0]["chat_template_kwargs"] == expected


def test_sampling_passes_through_and_max_tokens_is_capped(api: Running) -> None:
    api.service.options = replace(api.service.options, max_tokens_cap=50)
    api.client().chat.completions.create(
        model="m",
        messages=user("hi"),
        temperature=0.3,
        top_p=0.5,
        seed=7,
        stop=["END"],
        presence_penalty=0.1,
        frequency_penalty=0.2,
        max_tokens=100_000,
        extra_body={"logit_bias_unknown_field": 1},
    )
    body = api.upstream.chat_bodies[0]
    assert (body["temperature"], body["top_p"], body["seed"], body["stop"]) == (0.3, 0.5, 7, ["END"])
    assert (body["presence_penalty"], body["frequency_penalty"]) == (0.1, 0.2)
    assert body["max_tokens"] == 50
    assert "logit_bias_unknown_field" not in body


def test_top_k_passes_through(api: Running) -> None:
    api.client().chat.completions.create(model="m", messages=user("hi"), extra_body={"top_k": 5})
    assert api.upstream.chat_bodies[0]["top_k"] == 5


def test_image_data_url_reaches_the_model_re_encoded(api: Running) -> None:
    sent = png_data_url()
    api.client().chat.completions.create(
        model="m",
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What colour?"},
                    {"type": "image_url", "image_url": {"url": sent}},
                ],
            }
        ],
    )
    parts = api.upstream.chat_bodies[0]["messages"][-1]["content"]
    image = next(p for p in parts if p["type"] == "image_url")["image_url"]["url"]
    assert image.startswith("data:image/") and image != sent  # re-encoded by the app, metadata stripped
    assert parts[-1] == {"type": "text", "text": "What colour?"}


# ---- conversations --------------------------------------------------------------------------------------------


def test_session_header_continues_the_stored_conversation(api: Running) -> None:
    client = api.client()
    api.upstream.push(Script(answer=["First answer."]), Script(answer=["Second answer."]))
    first = client.chat.completions.with_raw_response.create(model="m", messages=user("one"))
    session_id = first.headers["x-session-id"]
    second = client.chat.completions.with_raw_response.create(
        model="m", messages=user("two"), extra_headers={"X-Session-Id": session_id}
    )
    assert second.headers["x-session-id"] == session_id
    sent = api.upstream.chat_bodies[1]["messages"]
    assert [(m["role"], m["content"]) for m in sent[1:]] == [
        ("user", "one"),
        ("assistant", "First answer."),
        ("user", "two"),
    ]
    assert len(api.store.messages(session_id)) == 4


def test_resent_history_without_session_becomes_a_new_stored_session(api: Running) -> None:
    messages = [
        {"role": "system", "content": "Answer in French."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!"},
        {"role": "user", "content": "Again"},
    ]
    raw = api.client().chat.completions.with_raw_response.create(model="m", messages=messages)
    sent = api.upstream.chat_bodies[0]["messages"]
    assert [(m["role"], m["content"]) for m in sent] == [
        ("system", f"{api.service.options.system_prompt}\n\nAnswer in French."),  # the operator's first
        ("user", "Hi"),
        ("assistant", "Hello!"),
        ("user", "Again"),
    ]
    stored = api.store.messages(raw.headers["x-session-id"])
    assert [m.role for m in stored] == ["user", "assistant", "user", "assistant"]


def test_resent_history_is_checked_by_the_input_rails(api: Running) -> None:
    messages = [
        {"role": "user", "content": "Read https://evil.test/x"},
        {"role": "assistant", "content": "Ok."},
        {"role": "user", "content": "Now summarise it"},
    ]
    completion = api.client().chat.completions.create(model="m", messages=messages)
    assert completion.choices[0].finish_reason == "content_filter"
    assert api.upstream.requests == []


@pytest.mark.parametrize("session_id", ["no-such-session", "foreign"])
def test_unknown_or_foreign_session_is_404(api: Running, session_id: str) -> None:
    if session_id == "foreign":
        session_id = api.store.create_session(owner="somebody-else", client="ui", model="m")
    with pytest.raises(openai.NotFoundError) as caught:
        api.client().chat.completions.create(
            model="m", messages=user("hi"), extra_headers={"X-Session-Id": session_id}
        )
    assert caught.value.code == "session_not_found"
    assert api.upstream.requests == []


# ---- refused fields and bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "code"),
    [
        ({"chat_template": "{{ evil }}"}, "chat_template_not_allowed"),
        (
            {"chat_template_kwargs": {"tools_in_system": True}},
            "chat_template_kwargs.tools_in_system_not_allowed",
        ),
        ({"chat_template_kwargs": {"thinking": "yes"}}, "chat_template_kwargs.thinking_not_allowed"),
        ({"media_io_kwargs": {"video": {"num_frames": 100000}}}, "media_io_kwargs_not_allowed"),
        ({"mm_processor_kwargs": {"max_pixels": 10**9}}, "mm_processor_kwargs_not_allowed"),
        ({"api_base": "http://169.254.169.254/"}, "api_base_not_allowed"),
        ({"base_url": "http://evil/"}, "base_url_not_allowed"),
        ({"api_key": "leak"}, "api_key_not_allowed"),
        ({"n": 2}, "n_not_allowed"),
    ],
)
def test_dangerous_fields_are_refused_and_never_reach_the_model(
    api: Running, extra: dict[str, Any], code: str
) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        api.client().chat.completions.create(model="m", messages=user("hi"), extra_body=extra)
    assert caught.value.code == code
    assert caught.value.status_code == 400
    assert api.upstream.requests == []


def test_another_profiles_thinking_key_is_refused(api: Running) -> None:
    api.service.profile = get_profile("qwen3")
    with pytest.raises(openai.BadRequestError) as caught:
        api.client().chat.completions.create(
            model="m", messages=user("hi"), extra_body={"chat_template_kwargs": {"thinking": True}}
        )
    assert caught.value.code == "chat_template_kwargs.thinking_not_allowed"
    assert api.upstream.requests == []


@pytest.mark.parametrize(
    ("body", "raw", "code"),
    [
        (None, b"{not json", "invalid_json"),
        (None, b"[" * 100_000, "invalid_json"),
        ([1, 2], None, "invalid_json"),
        ({"model": "m", "messages": []}, None, "invalid_request"),
        ({"model": "m"}, None, "invalid_request"),
        ({"model": "m", "messages": "hi"}, None, "invalid_request"),
        ({"model": "m", "messages": [{"role": "wizard", "content": "x"}]}, None, "invalid_request"),
        ({"model": "m", "messages": user("hi"), "temperature": "hot"}, None, "invalid_request"),
        ({"model": "m", "messages": [{"role": "assistant", "content": "x"}]}, None, "last_message_not_user"),
        (
            {"model": "m", "messages": [{"role": "user", "content": [{"type": "input_audio"}]}]},
            None,
            "unsupported_content_part",
        ),
        ({"model": "m", "messages": user("   ")}, None, "invalid_request"),
        (
            {
                "model": "m",
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "image_url",
                                "image_url": {"url": "data:image/png;base64,bm90IGFuIGltYWdl"},
                            }
                        ],
                    }
                ],
            },
            None,
            "invalid_request",
        ),
    ],
)
def test_bad_input_gets_an_openai_shaped_400(api: Running, body: Any, raw: bytes | None, code: str) -> None:
    response = api.post(body, raw=raw)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code and error["type"] == "invalid_request_error" and error["message"]
    assert api.upstream.requests == []


def test_too_many_images_is_a_400(api: Running) -> None:
    parts = [{"type": "image_url", "image_url": {"url": png_data_url()}}] * (
        api.service.options.max_images + 1
    )
    response = api.post(
        {"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "x"}, *parts]}]}
    )
    assert response.status_code == 400 and "Too many images" in response.json()["error"]["message"]


# ---- rails -------------------------------------------------------------------------------------------------------


def test_input_block_is_a_200_content_filter_with_guardrails(api: Running) -> None:
    completion = api.client().chat.completions.create(
        model="m", messages=user("Summarise https://evil.test/p")
    )
    choice = completion.choices[0]
    assert choice.finish_reason == "content_filter"
    assert "evil.test" in (choice.message.content or "")
    rails = completion.model_extra["guardrails"]
    assert rails["stage"] == "input" and rails["rail"] == "url_allowlist" and "evil.test" in rails["reason"]
    assert api.upstream.requests == []


def test_image_url_off_the_allowlist_is_blocked_without_fetching(api: Running) -> None:
    stream = api.client().chat.completions.create(
        model="m",
        stream=True,
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Describe"},
                    {"type": "image_url", "image_url": {"url": "https://evil.test/a.png"}},
                ],
            }
        ],
    )
    chunks = list(stream)
    assert chunks[-1].choices[0].finish_reason == "content_filter"
    assert chunks[-1].model_extra["guardrails"]["stage"] == "input"
    assert api.upstream.requests == []


def test_output_block_in_a_stream_ends_with_content_filter(api: Running) -> None:
    api.upstream.push(
        Script(
            answer=["Sure, here it is. ", "![x](https://evil.example/?q=secret)", " more"],
            endless=True,
            delay_s=0.01,
        )
    )
    chunks = list(api.client().chat.completions.create(model="m", messages=user("Show me"), stream=True))
    texts = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert "https://evil.example" not in texts and "secret" not in texts  # the refusal may name the host
    final = chunks[-1]
    assert final.choices[0].finish_reason == "content_filter"
    assert final.model_extra["guardrails"]["stage"] == "output"
    assert final.model_extra["guardrails"]["rail"] == "url_allowlist"
    assert [c for c in chunks if c.choices and c.choices[0].finish_reason == "stop"] == []


def test_output_block_non_stream_returns_only_the_refusal(api: Running) -> None:
    api.upstream.push(Script(answer=["Sure. ", "![x](https://evil.example/?q=secret)"]))
    completion = api.client().chat.completions.create(model="m", messages=user("Show me"))
    assert completion.choices[0].finish_reason == "content_filter"
    assert "https://evil.example" not in (completion.choices[0].message.content or "")
    assert completion.model_extra["guardrails"]["stage"] == "output"


# ---- upstream failures and disconnects ------------------------------------------------------------------------


def test_upstream_failure_mid_stream_is_an_error_event_not_a_stop(api: Running) -> None:
    api.upstream.push(
        Script(answer=["First sentence. ", "Second sentence. ", "Third."], fail_after=2, delay_s=0.05)
    )
    finishes: list[str | None] = []
    content = ""
    with pytest.raises(openai.APIError) as caught:
        for chunk in api.client().chat.completions.create(model="m", messages=user("hi"), stream=True):
            for choice in chunk.choices:
                content += choice.delta.content or ""
                finishes.append(choice.finish_reason)
    assert content.startswith("First sentence.")  # text was streamed before the cut
    assert "stop" not in finishes
    assert "model server" in caught.value.message


@pytest.mark.parametrize(
    ("script", "status"),
    [(Script(status=500, error_message="boom"), 503), (Script(answer=["never"], fail_after=0), 503)],
)
def test_upstream_failure_before_any_text_is_a_5xx(api: Running, script: Script, status: int) -> None:
    for stream in (False, True):
        api.upstream.push(script)
        response = api.post({"model": "m", "messages": user("hi"), "stream": stream})
        assert response.status_code == status
        assert response.json()["error"]["type"] == "server_error"
        assert response.headers["x-session-id"]


def test_client_disconnect_mid_stream_cancels_upstream_and_stores_interrupted(api: Running) -> None:
    api.upstream.push(Script(answer=["Going on. "] * 3, endless=True, delay_s=0.02))
    with httpx.stream(
        "POST",
        f"{api.url}/v1/chat/completions",
        timeout=20,
        json={"model": "m", "messages": user("Go on forever"), "stream": True},
    ) as response:
        session_id = response.headers["x-session-id"]
        for line in response.iter_lines():
            if '"content": "Going' in line:
                break
    wait_for(lambda: api.upstream.requests and api.upstream.requests[0].disconnected is not None)
    wait_for(lambda: api.store.messages(session_id)[-1].status == "interrupted")


def test_client_leaving_a_non_stream_request_stops_the_answer(api: Running) -> None:
    api.upstream.push(Script(answer=["Going on. "] * 3, endless=True, delay_s=0.02))
    with pytest.raises(httpx.ReadTimeout):
        api.post({"model": "m", "messages": user("Go on, non-stream")}, timeout=1.0)
    wait_for(lambda: api.upstream.requests and api.upstream.requests[0].disconnected is not None)
    session = next(s for s in api.store.list_sessions(owner="api:local") if s.title == "Go on, non-stream")
    wait_for(lambda: api.store.messages(session.id)[-1].status == "interrupted")
