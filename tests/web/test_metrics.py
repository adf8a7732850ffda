"""/metrics in Prometheus text: the counters, histograms and gauges move with real turns."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from tests.support.paths import ASSETS_DIR, RAILS_DIR
from tests.support.scripted_upstream import Script
from tests.support.service import TEST_ALLOWLIST, api_app, make_service
from webapp.turn.events import AnswerDelta, TurnRequest
from webapp.web.metrics import Metrics

HI = {"messages": [{"role": "user", "content": "hi"}]}


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def value(text: str, name: str, **labels: str) -> float:
    return samples(text).get((name, frozenset(labels.items())), 0.0)


@pytest.fixture
def client(tmp_path: Path, store, guard, upstream):
    app = api_app(tmp_path, make_service(store, guard, upstream))
    with TestClient(app) as test_client:
        yield test_client


def test_metrics_move_with_a_completed_turn(client: TestClient) -> None:
    before = client.get("/metrics").text
    assert client.post("/v1/chat/completions", json=HI).status_code == 200
    after = client.get("/metrics").text
    assert (
        value(
            after,
            "railchat_http_requests_total",
            endpoint="/v1/chat/completions",
            method="POST",
            status="200",
        )
        == 1
    )
    assert value(after, "railchat_turns_total", client="api", status="complete") == 1
    assert value(after, "railchat_tokens_total", kind="prompt") == 10
    assert value(after, "railchat_tokens_total", kind="completion") == 3
    assert value(after, "railchat_time_to_first_token_seconds_count", client="api") == 1
    assert value(after, "railchat_turn_duration_seconds_count", client="api") == 1
    assert (
        value(after, "railchat_rail_verdicts_total", stage="input", rail="url_allowlist", decision="allow")
        == 1
    )
    assert (
        value(after, "railchat_rail_verdicts_total", stage="output", rail="moderation", decision="allow") >= 1
    )
    assert value(after, "railchat_turns_in_progress", client="api") == 0
    assert value(after, "railchat_active_streams", client="api") == 0
    assert value(before, "railchat_turns_total", client="api", status="complete") == 0


def test_blocks_errors_and_requests_by_status_are_counted(client: TestClient, upstream) -> None:
    client.post(
        "/v1/chat/completions", json={"messages": [{"role": "user", "content": "see https://evil.test/"}]}
    )
    upstream.push(Script(status=500, error_message="boom"))
    assert client.post("/v1/chat/completions", json=HI).status_code == 503
    assert client.post("/v1/chat/completions", json={"messages": []}).status_code == 400
    text = client.get("/metrics").text
    assert (
        value(text, "railchat_rail_verdicts_total", stage="input", rail="url_allowlist", decision="block")
        == 1
    )
    assert value(text, "railchat_turns_total", client="api", status="blocked") == 1
    assert value(text, "railchat_turns_total", client="api", status="error") == 1
    assert value(text, "railchat_upstream_errors_total", code="upstream_unavailable") == 1
    for status in ("200", "503", "400"):
        assert (
            value(
                text,
                "railchat_http_requests_total",
                endpoint="/v1/chat/completions",
                method="POST",
                status=status,
            )
            == 1
        )


def test_made_up_methods_share_one_label(client: TestClient) -> None:
    """Any token is a valid HTTP method: one label value per made-up method grew the registry without end."""
    for n in range(20):
        client.request(f"X{n}", "/healthz")
    requests = {
        labels: count
        for (name, labels), count in samples(client.get("/metrics").text).items()
        if name == "railchat_http_requests_total"
    }
    methods = {dict(labels)["method"] for labels in requests}
    assert not any(m.startswith("X") for m in methods)
    assert sum(count for labels, count in requests.items() if ("method", "other") in labels) == 20


async def test_gauges_while_a_turn_streams_and_after_a_stop(store, guard, upstream) -> None:
    metrics = Metrics()
    service = make_service(store, guard, upstream)
    service.observer = metrics
    upstream.push(Script(answer=["Going on. "] * 3, endless=True, delay_s=0.02))
    turn = service.run_turn(TurnRequest(owner="alice", text="forever", client="ui"))
    async for event in turn:
        if isinstance(event, AnswerDelta):
            break
    assert metrics.turns_in_progress.labels("ui")._value.get() == 1
    assert metrics.active_streams.labels("ui")._value.get() == 1
    await turn.aclose()
    assert metrics.turns_in_progress.labels("ui")._value.get() == 0
    assert metrics.active_streams.labels("ui")._value.get() == 0
    assert metrics.turns.labels("ui", "interrupted")._value.get() == 1


def test_each_app_has_its_own_registry() -> None:
    first, second = Metrics(), Metrics()  # the default global registry would refuse the second
    first.tokens.labels("prompt").inc(5)
    assert second.tokens.labels("prompt")._value.get() == 0


def test_full_app_serves_api_and_metrics_beside_the_ui(tmp_path: Path, upstream) -> None:
    from webapp.config import load_settings
    from webapp.web.app import Upstream, build_service, create_app

    settings = load_settings(
        data_dir=tmp_path, llm_url=upstream.base_url, rails=RAILS_DIR, url_allowlist=TEST_ALLOWLIST
    )
    service = build_service(settings, Upstream(upstream.base_url), served_model=upstream.model)
    with TestClient(create_app(settings, service), base_url="http://127.0.0.1") as client:
        assert client.get("/v1/models").json()["data"][0]["id"] == upstream.model
        assert client.get("/healthz").json()["upstream"] == "ok"
        response = client.get("/metrics")
        assert response.headers["content-type"].startswith("text/plain")
        assert (
            value(
                response.text, "railchat_http_requests_total", endpoint="/healthz", method="GET", status="200"
            )
            == 1
        )
        assert client.get("/").status_code == 200
        client.get("/config")
        text = client.get("/metrics").text
        assert value(text, "railchat_http_requests_total", endpoint="/", method="GET", status="200") == 1
        # the UI's own routes are labelled by their templates too: bounded label values
        assert (
            value(text, "railchat_http_requests_total", endpoint="/config", method="GET", status="200") == 1
        )


def test_grafana_dashboard_uses_only_metrics_that_exist() -> None:
    import json
    import re

    dashboard = json.loads((ASSETS_DIR / "grafana-dashboard.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    used = {name for e in exprs for name in re.findall(r"\b(railchat_[a-z_]+)", e)}
    suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"), "gauge": ("",)}
    exported = {
        family.name + suffix for family in Metrics().registry.collect() for suffix in suffixes[family.type]
    }
    assert used and used <= exported, used - exported
    vllm = {name for e in exprs for name in re.findall(r"\b(vllm:[a-z_]+)", e)}
    assert {
        "vllm:time_to_first_token_seconds_bucket",
        "vllm:generation_tokens_total",
        "vllm:kv_cache_usage_perc",
        "vllm:num_requests_running",
    } <= vllm


def test_the_moderation_caches_are_published_with_their_limits(client: TestClient, guard) -> None:
    guard.checks.moderator.wait_ready(120)  # the sentence scores exist once the classifier is fitted
    assert client.post("/v1/chat/completions", json=HI).status_code == 200
    text = client.get("/metrics").text
    for cache in ("verdicts", "sentence_vectors", "sentence_scores"):
        assert value(text, "railchat_moderation_cache_limit_bytes", cache=cache) > 0
    assert value(text, "railchat_moderation_cache_entries", cache="verdicts") >= 1
    assert value(text, "railchat_moderation_cache_bytes", cache="verdicts") > 0


def test_metrics_in_demo_mode_need_the_metrics_token(tmp_path: Path, upstream, monkeypatch) -> None:
    """Was: open to every visitor of a demo (and of a --share link, whose tunnel arrives from loopback)."""
    from tests.support.live_app import live_app

    with live_app(tmp_path, upstream, monkeypatch, demo=True, metrics_token="scrape-me") as live:
        with live.client() as visitor:
            anonymous = visitor.get("/metrics")
            wrong = visitor.get("/metrics", headers={"Authorization": "Bearer scrape-you"})
            scraper = visitor.get("/metrics", headers={"Authorization": "Bearer scrape-me"})
    assert anonymous.status_code == 403 and anonymous.json()["error"]["code"] == "metrics_disabled"
    assert wrong.status_code == 403 and "railchat_" not in wrong.text
    assert scraper.status_code == 200 and "railchat_http_requests_total" in scraper.text


@pytest.mark.parametrize(
    ("demo", "auth", "token", "sent", "readable"),
    [
        (True, False, None, None, False),  # a demo without a token: nobody reads it
        (True, False, None, "Bearer anything", False),
        (True, False, "t0ken", "Bearer t0ken", True),
        (True, False, "t0ken", "Bearer t0ke", False),
        (False, False, None, None, True),  # no auth file, no demo: the operator's own machine
        (False, True, None, None, False),  # an auth file: a reviewer's key ...
        (False, True, "t0ken", "Bearer t0ken", True),  # ... or the token
        (False, True, "t0ken", "bearer t0ken", True),
    ],
)
def test_who_reads_metrics(
    tmp_path: Path, demo: bool, auth: bool, token: str | None, sent: str | None, readable: bool
) -> None:
    from tests.web.test_auth import write_auth_file
    from webapp.web.auth import ApiAccess, AuthFile
    from webapp.web.metrics import metrics_refusal

    access = ApiAccess(AuthFile.load(write_auth_file(tmp_path)) if auth else None, not demo and not auth)
    assert (metrics_refusal(sent, access, demo=demo, token=token) is None) is readable
