"""Structured logs: JSON lines, request and session ids on every record, no message content by default."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.support.scripted_upstream import Script
from tests.support.service import api_app, make_service
from webapp.config import load_settings
from webapp.web.logs import (
    ContextFilter,
    JsonFormatter,
    allow_content_in_log,
    configure_logging,
    content_for_log,
    request_id_var,
    session_id_var,
)

SECRET_PROMPT = "my bank password is hunter2"
SECRET_ANSWER = "Here is my private reply."


@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    """Everything logged, as the JSON formatter writes it."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield buffer
    root.removeHandler(handler)
    root.setLevel(old_level)


def records(buffer: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in buffer.getvalue().splitlines() if line.strip()]


def test_json_formatter_adds_context_and_extras(json_lines: io.StringIO) -> None:
    request_token, session_token = request_id_var.set("req-1"), session_id_var.set("sess-1")
    try:
        logging.getLogger("railchat.test").info("hello %s", "world", extra={"tokens": 5})
    finally:
        request_id_var.reset(request_token)
        session_id_var.reset(session_token)
    entry = records(json_lines)[-1]
    assert (
        entry["message"] == "hello world" and entry["level"] == "info" and entry["logger"] == "railchat.test"
    )
    assert (entry["request_id"], entry["session_id"], entry["tokens"]) == ("req-1", "sess-1", 5)
    assert entry["ts"].endswith("Z")


def test_explicit_session_extra_still_works(json_lines: io.StringIO) -> None:
    logging.getLogger("railchat.test").error("boom", extra={"session_id": "explicit"})
    assert records(json_lines)[-1]["session_id"] == "explicit"


def test_content_is_only_logged_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAILCHAT_LOG_CONTENT", raising=False)
    allow_content_in_log(load_settings().log_content)
    assert content_for_log(SECRET_PROMPT) == f"<{len(SECRET_PROMPT)} chars>"
    monkeypatch.setenv("RAILCHAT_LOG_CONTENT", "1")
    try:
        allow_content_in_log(load_settings().log_content)
        assert content_for_log(SECRET_PROMPT) == SECRET_PROMPT
    finally:
        allow_content_in_log(False)


def test_api_requests_are_logged_with_ids_and_without_content(
    json_lines: io.StringIO,
    tmp_path: Path,
    store,
    guard,
    upstream,
) -> None:
    upstream.push(Script(answer=[SECRET_ANSWER]))
    app = api_app(tmp_path, make_service(store, guard, upstream))
    with TestClient(app) as client:
        response = client.post(
            "/v1/chat/completions",
            headers={"X-Request-Id": "abc-123"},
            json={"messages": [{"role": "user", "content": SECRET_PROMPT}]},
        )
        generated = client.get("/v1/models").headers["x-request-id"]
    assert response.headers["x-request-id"] == "abc-123"
    assert len(generated) == 16 and generated != "abc-123"
    session_id = response.headers["x-session-id"]
    entries = records(json_lines)
    turn = next(e for e in entries if e["message"].startswith("chat completion"))
    assert (turn["request_id"], turn["session_id"], turn["status"]) == ("abc-123", session_id, "complete")
    access = next(e for e in entries if e["message"].startswith("POST /v1/chat/completions"))
    assert access["status"] == 200 and access["request_id"] == "abc-123"
    everything = json_lines.getvalue()
    assert "hunter2" not in everything and "private reply" not in everything


def test_streamed_requests_log_their_session_on_every_line(
    json_lines: io.StringIO, tmp_path: Path, store, guard, upstream
) -> None:
    upstream.push(Script(answer=["Fine ", "thanks."]))
    app = api_app(tmp_path, make_service(store, guard, upstream))
    with TestClient(app) as client:
        response = client.post(
            "/v1/chat/completions",
            json={"messages": [{"role": "user", "content": "How are you?"}], "stream": True},
        )
        assert "data: [DONE]" in response.text
    session_id = response.headers["x-session-id"]
    entries = records(json_lines)
    turn = next(e for e in entries if e["message"].startswith("chat completion"))
    access = next(e for e in entries if e["message"].startswith("POST /v1/chat/completions"))
    assert turn["stream"] is True and turn["session_id"] == session_id
    assert access["session_id"] == session_id


def test_a_forged_request_id_is_replaced(tmp_path: Path, store, guard, upstream) -> None:
    app = api_app(tmp_path, make_service(store, guard, upstream))
    with TestClient(app) as client:
        sent = client.get("/v1/models", headers={"X-Request-Id": 'x\n{"level": "fake"}'})
    assert sent.headers["x-request-id"] != 'x\n{"level": "fake"}'


def test_configure_logging_switches_to_json_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = logging.getLogger()
    before = list(root.handlers), root.level
    monkeypatch.setenv("RAILCHAT_LOG_JSON", "1")
    try:
        configure_logging(load_settings())
        configure_logging(load_settings())  # idempotent: one handler, not two
        ours = [h for h in root.handlers if getattr(h, "railchat", False)]
        assert len(ours) == 1 and isinstance(ours[0].formatter, JsonFormatter)
    finally:
        root.handlers[:] = before[0]
        root.setLevel(before[1])


def test_httpx_and_alembic_say_nothing_per_request_at_the_default_level() -> None:
    root = logging.getLogger()
    before = list(root.handlers), root.level
    try:
        configure_logging(load_settings())
        for name in ("httpx", "httpcore", "alembic"):
            assert not logging.getLogger(name).isEnabledFor(logging.INFO), name
        assert logging.getLogger("railchat.http").isEnabledFor(logging.INFO)
    finally:
        root.handlers[:] = before[0]
        root.setLevel(before[1])
