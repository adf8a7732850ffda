"""Prometheus metrics: one `CollectorRegistry` per app (tests stay isolated), served at `/metrics`.

ChatService reports every turn through `Metrics.turn` (a context manager handing back an observer for each
event) and every rail verdict through `Metrics.rails`; HTTP requests are counted by a small ASGI middleware.
Labels stay low-cardinality: route templates, never raw paths, session ids or text.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Metric,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from webapp.guard.moderation.memo import memo_sizes
from webapp.turn.events import ContextInfo, Observe, SessionReady, TurnDone, TurnEvent

if TYPE_CHECKING:
    from webapp.guard.verdicts import RailOutcome
    from webapp.web.auth import ApiAccess


# Seconds. A thinking model may take minutes to its first answer token; a small model on CPU ~1 s.
TTFT_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0)
DURATION_BUCKETS = (0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
STANDARD_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UPSTREAM_CODES = ("upstream_unavailable", "upstream_error", "upstream_rejected", "images_not_supported")


class Metrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "railchat_http_requests",
            "HTTP requests by endpoint and status",
            ["endpoint", "method", "status"],
            registry=r,
        )
        self.request_seconds = Histogram(
            "railchat_http_request_duration_seconds",
            "HTTP request duration",
            ["endpoint"],
            buckets=DURATION_BUCKETS,
            registry=r,
        )
        self.turns = Counter(
            "railchat_turns",
            "Finished chat turns by client and final status",
            ["client", "status"],
            registry=r,
        )
        self.rail_verdicts = Counter(
            "railchat_rail_verdicts",
            "Rail verdicts by stage, rail and decision",
            ["stage", "rail", "decision"],
            registry=r,
        )
        self.ttft = Histogram(
            "railchat_time_to_first_token_seconds",
            "Time from request to first model token",
            ["client"],
            buckets=TTFT_BUCKETS,
            registry=r,
        )
        self.duration = Histogram(
            "railchat_turn_duration_seconds",
            "Time from upstream request to the end",
            ["client"],
            buckets=DURATION_BUCKETS,
            registry=r,
        )
        self.tokens = Counter(
            "railchat_tokens", "Tokens as counted by the model server", ["kind"], registry=r
        )
        self.turns_in_progress = Gauge(
            "railchat_turns_in_progress",
            "Turns accepted and not finished (waiting or running): the queue depth",
            ["client"],
            registry=r,
        )
        self.active_streams = Gauge(
            "railchat_active_streams", "Answers streaming from the model server now", ["client"], registry=r
        )
        self.upstream_errors = Counter(
            "railchat_upstream_errors", "Turns failed by the model server", ["code"], registry=r
        )
        r.register(ModerationMemory())

    # -- ChatService side -----------------------------------------------------------------------------

    @contextmanager
    def turn(self, client: str) -> Iterator[Observe]:
        in_progress = self.turns_in_progress.labels(client)
        in_progress.inc()
        state = _TurnState()
        try:
            yield lambda event: self._observe(client, state, event)
        finally:
            in_progress.dec()
            if state.streaming:
                self.active_streams.labels(client).dec()
            if not state.done:  # closed early (stop button, client gone) or refused (unknown session)
                self.turns.labels(client, "interrupted" if state.started else "rejected").inc()

    def rails(self, outcomes: Sequence[RailOutcome]) -> None:
        for outcome in outcomes:
            self.rail_verdicts.labels(outcome.stage, outcome.rail, outcome.decision).inc()

    def _observe(self, client: str, state: _TurnState, event: TurnEvent) -> None:
        if isinstance(event, SessionReady):
            state.started = True
        elif isinstance(event, ContextInfo) and not state.streaming:
            state.streaming = True
            self.active_streams.labels(client).inc()
        elif isinstance(event, TurnDone):
            state.done = True
            if state.streaming:
                state.streaming = False
                self.active_streams.labels(client).dec()
            self._finished(client, event)

    def _finished(self, client: str, done: TurnDone) -> None:
        self.turns.labels(client, done.status).inc()
        if done.ttft_ms is not None:
            self.ttft.labels(client).observe(done.ttft_ms / 1000)
        if done.duration_ms is not None:
            self.duration.labels(client).observe(done.duration_ms / 1000)
        if done.prompt_tokens:
            self.tokens.labels("prompt").inc(done.prompt_tokens)
        if done.completion_tokens:
            self.tokens.labels("completion").inc(done.completion_tokens)
        if done.code in UPSTREAM_CODES:
            self.upstream_errors.labels(done.code).inc()

    # -- HTTP side --------------------------------------------------------------------------------------

    def render(self) -> Response:
        return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)


class ModerationMemory(Collector):
    """What the moderator's memories hold, read when scraped: with new text every turn they fill over
    thousands of turns, and the app's resident memory should level off when they are full."""

    def collect(self) -> Iterator[Metric]:
        entries = GaugeMetricFamily(
            "railchat_moderation_cache_entries", "Entries the moderation caches hold", labels=["cache"]
        )
        held = GaugeMetricFamily(
            "railchat_moderation_cache_bytes",
            "Bytes the moderation caches hold (an estimate)",
            labels=["cache"],
        )
        limit = GaugeMetricFamily(
            "railchat_moderation_cache_limit_bytes", "Bytes a moderation cache may hold", labels=["cache"]
        )
        totals: dict[str, list[int]] = {}
        for size in memo_sizes():  # a process may hold several guards (tests): summed per cache
            total = totals.setdefault(size.name, [0, 0, 0])
            total[0] += size.entries
            total[1] += size.bytes
            total[2] += size.max_bytes
        for name, (count, used, most) in sorted(totals.items()):
            entries.add_metric([name], count)
            held.add_metric([name], used)
            limit.add_metric([name], most)
        yield from (entries, held, limit)


class _TurnState:
    __slots__ = ("started", "streaming", "done")

    def __init__(self) -> None:
        self.started = False
        self.streaming = False
        self.done = False


class RequestMetricsMiddleware:
    """Counts every HTTP request by route template and status (pure ASGI: streams and disconnects untouched)."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500  # if the app dies before answering, that is what the client gets
        started = time.perf_counter()

        async def send_and_note(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            endpoint = endpoint_label(scope)
            self.metrics.requests.labels(endpoint, method_label(scope), str(status)).inc()
            self.metrics.request_seconds.labels(endpoint).observe(time.perf_counter() - started)


def method_label(scope: Scope) -> str:
    """The request's method if it is a standard one, else "other": HTTP lets a client send any token as a
    method, and each new label value is a time series kept for the life of the process."""
    method = str(scope.get("method", ""))
    return method if method in STANDARD_METHODS else "other"


def endpoint_label(scope: Scope) -> str:
    """The route template (`/v1/chat/completions`, `/api/sessions/{session_id}`), or "other".

    Runs after the request: a mounted app (the Gradio UI) has put itself in `scope["app"]` by then, so its
    routes are labelled by their own templates."""
    app: Any = scope.get("app")
    for route in getattr(app, "routes", ()):
        if isinstance(route, Mount):
            continue
        match, _ = route.matches(scope)
        if match == Match.FULL:
            return str(getattr(route, "path", "other"))
    return "other"


def install(app: Any, metrics: Metrics, access: ApiAccess, *, demo: bool, token: str | None = None) -> None:
    """`/metrics` and the request counter. Who may read it: see ``metrics_refusal``."""
    from fastapi.responses import JSONResponse

    async def metrics_endpoint(request: Request) -> Response:
        refusal = metrics_refusal(request.headers.get("authorization"), access, demo=demo, token=token)
        if refusal is not None:
            status, code, message = refusal
            error = {"message": message, "type": "authentication_error", "code": code}
            return JSONResponse({"error": error}, status_code=status)
        return metrics.render()

    app.state.metrics = metrics
    app.add_api_route("/metrics", metrics_endpoint, methods=["GET"], include_in_schema=False)
    app.add_middleware(RequestMetricsMiddleware, metrics=metrics)


def metrics_refusal(
    authorization: str | None, access: ApiAccess, *, demo: bool, token: str | None
) -> tuple[int, str, str] | None:
    """None when the request may read `/metrics`: with ``token`` (``RAILCHAT_METRICS_TOKEN``) as its Bearer
    key in any mode; with a reviewer's or admin's API key under an auth file; with nothing at all only when
    there is neither an auth file nor demo mode. A demo is open to every visitor (with ``--share``, through a
    tunnel that arrives from loopback, so the client address tells nothing): its counters are the
    operator's, and need the token."""
    from webapp.web.auth import AccessDenied

    scheme, _, key = (authorization or "").partition(" ")
    if token and scheme.lower() == "bearer" and hmac.compare_digest(key.strip().encode(), token.encode()):
        return None
    if access.auth is None:
        if not demo:
            return None
        return 403, "metrics_disabled", "In demo mode /metrics needs RAILCHAT_METRICS_TOKEN as a Bearer key."
    try:
        access.owner(authorization, role="reviewer")
    except AccessDenied as exc:
        return exc.status, exc.code, exc.message
    return None
