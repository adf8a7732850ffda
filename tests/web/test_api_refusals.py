"""What an API client is told when a turn is refused for now (an admission): the status, OpenAI's error type,
and whether and when to retry. The openai SDK retries a 429 by itself: after ``Retry-After`` when it is sent,
and not at all when ``x-should-retry: false`` is (a spent quota, which no wait helps). The real-HTTP side of
the turn cap: tests/web/test_api_turn_cap.py."""

from __future__ import annotations

import json

import pytest

from webapp.turn.events import TurnDone
from webapp.web.api.response import error_response, failure_of


@pytest.mark.parametrize(
    ("code", "retry_after_s", "status", "kind", "retry_header"),
    [
        ("too_many_turns", 5, 429, "requests", ("Retry-After", "5")),
        ("server_busy", 5, 429, "requests", ("Retry-After", "5")),
        ("rate_limited", 19, 429, "requests", ("Retry-After", "19")),
        ("busy", 30, 429, "requests", ("Retry-After", "30")),
        ("quota_exhausted", None, 429, "insufficient_quota", ("x-should-retry", "false")),
        ("invite_invalid", None, 403, "permission_error", None),
    ],
)
def test_a_refusal_says_whether_and_when_to_retry(
    code: str, retry_after_s: int | None, status: int, kind: str, retry_header: tuple[str, str] | None
) -> None:
    done = TurnDone("error", None, "Not now.", kind="error", code=code, retry_after_s=retry_after_s)
    failure = failure_of(done)
    assert failure is not None
    response = error_response(failure, "s1")
    error = json.loads(bytes(response.body))["error"]
    assert (response.status_code, error["type"], error["code"]) == (status, kind, code)
    assert response.headers["X-Session-Id"] == "s1"
    sent = {name: response.headers.get(name) for name in ("Retry-After", "x-should-retry")}
    expected = dict.fromkeys(sent)
    if retry_header is not None:
        expected[retry_header[0]] = retry_header[1]
    assert sent == expected
