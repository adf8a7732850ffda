"""Structured logging: every record carries the request id and session id of the request it belongs to.

`configure_logging(settings)` sets up the root logger: human-readable lines by default, JSON lines with
`RAILCHAT_LOG_JSON=1`. Message content never goes to the log unless `RAILCHAT_LOG_CONTENT=1`: use
`content_for_log(text)`, which otherwise logs only the length.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import time
from contextvars import ContextVar
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from webapp.config import Settings

request_id_var: ContextVar[str | None] = ContextVar("railchat_request_id", default=None)
session_id_var: ContextVar[str | None] = ContextVar("railchat_session_id", default=None)
# One box per HTTP request, shared by every task the request starts: a session bound inside a child task (the
# pipeline runs in one, an SSE body in another) reaches the request's other lines and its access line too,
# which a plain context variable, copied into each task, would not.
_request_session: ContextVar[list[str | None] | None] = ContextVar("railchat_request_session", default=None)

REQUEST_ID_HEADER = "x-request-id"
_SAFE_ID = re.compile(
    r"^[A-Za-z0-9._-]{1,64}$"
)  # a client-sent id is echoed only if it cannot forge log lines
# Attributes every LogRecord has; anything else on a record came from `extra=` and is logged as a field.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "taskName"}
_log = logging.getLogger("railchat.http")


# Process-wide, like the root logger it goes with; until settings say otherwise, message text stays out.
_content_allowed = False


def content_for_log(text: str) -> str:
    """Message text for a log line: the text itself only when RAILCHAT_LOG_CONTENT=1, else its length."""
    return text if _content_allowed else f"<{len(text)} chars>"


def bind_session(session_id: str | None) -> None:
    """Attach a session id to every record logged from here on in this request, whichever task logs it."""
    session_id_var.set(session_id)
    box = _request_session.get()
    if box is not None:
        box[0] = session_id


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and value is not None:
                entry[key] = value if isinstance(value, str | int | float | bool) else repr(value)
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        extras = [f"{k}={v}" for k, v in vars(record).items() if k not in _STANDARD and v is not None]
        return f"{line} [{' '.join(extras)}]" if extras else line


class ContextFilter(logging.Filter):
    """Adds `request_id` and `session_id` of the current request to each record (an explicit extra wins).

    A handler filter, not a record factory: `extra={"session_id": ...}` must stay possible for callers."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = request_id_var.get()
        if getattr(record, "session_id", None) is None:
            box = _request_session.get()
            record.session_id = session_id_var.get() or (box[0] if box else None)
        return True


# Libraries that log a line per request or per start at INFO (httpx: every upstream call; alembic: its
# migration context on every start): at the default level the console shows railchat's own steps only.
CHATTY_LOGGERS = ("httpx", "httpcore", "alembic")

# Libraries that log message text at INFO (NeMo Guardrails logs every rail event with the user's words).
CONTENT_LOGGERS = ("nemoguardrails",)


def allow_content_in_log(allowed: bool) -> None:
    """Whether message text may reach the log. Off also quiets libraries that log it at INFO (idempotent)."""
    global _content_allowed
    _content_allowed = allowed
    if not allowed:
        for name in CONTENT_LOGGERS:
            logger = logging.getLogger(name)
            logger.setLevel(max(logger.getEffectiveLevel(), logging.WARNING))


def configure_logging(settings: Settings) -> None:
    """Root logger to stderr, as lines or JSON lines, at the configured level (idempotent)."""
    allow_content_in_log(settings.log_content)
    handler = logging.StreamHandler()
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter() if settings.log_json else TextFormatter())
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "railchat", False)]:
        root.removeHandler(old)
    handler.railchat = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(settings.log_level.upper())
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG if root.level <= logging.DEBUG else logging.WARNING)


class RequestIdMiddleware:
    """Gives each HTTP request an id (a sane client `X-Request-Id`, or a new one), echoes it in the response,
    and logs one access line per request: method, route path, status, duration. No query string, no body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = dict(scope.get("headers") or []).get(REQUEST_ID_HEADER.encode(), b"").decode("latin-1")
        request_id = sent if _SAFE_ID.match(sent) else secrets.token_hex(8)
        request_token = request_id_var.set(request_id)
        session_token = session_id_var.set(None)
        box_token = _request_session.set([None])
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                message = {
                    **message,
                    "headers": [
                        *message.get("headers", []),
                        (REQUEST_ID_HEADER.encode(), request_id.encode()),
                    ],
                }
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            if not _quiet(scope["path"]):
                _log.info(
                    "%s %s %s",
                    scope.get("method"),
                    scope["path"],
                    status,
                    extra={"status": status, "duration_ms": round((time.perf_counter() - started) * 1000, 1)},
                )
            request_id_var.reset(request_token)
            session_id_var.reset(session_token)
            _request_session.reset(box_token)


def _quiet(path: str) -> bool:
    # The UI's own asset and queue polling would drown the log; API, health and audit calls are logged.
    return not (path.startswith("/v1/") or path.startswith("/api/") or path in {"/healthz", "/metrics"})
