"""The OpenAI-compatible API (`/v1/models`, `/v1/chat/completions`) over the same pipeline and store as the UI.

Requests become a `TurnRequest` (client "api", `request`); `TurnEvent`s become an OpenAI object or SSE chunks
(`response`, `stream`); `routes` ties them to the endpoints.

Conversation: with `X-Session-Id` the stored session is the history and only the last user message of the
request is new. Without it a new session is created and the earlier user/assistant messages of the request
(text only) are stored first as its history, so clients that resend the whole conversation work as expected.
Client `system`/`developer` messages are not used: the app's system prompt applies.
"""

from __future__ import annotations

from fastapi import FastAPI

from webapp.turn.admission import chain
from webapp.turn.service import ChatService
from webapp.turn.turncap import TurnCap
from webapp.web.api.routes import build_router
from webapp.web.auth import ApiAccess

__all__ = ["build_router", "install"]


def install(
    app: FastAPI, service: ChatService, access: ApiAccess, *, turns: int, turns_per_key: int, stall_s: float
) -> None:
    """The routes, and the cap on API turns at once.

    The open loopback API has no keys, so its one owner is capped by the total alone and a refusal names no key.
    """
    per_owner = turns_per_key if access.auth is not None else None
    service.admission = chain(service.admission, TurnCap(total=turns, per_owner=per_owner))
    app.include_router(build_router(service, access, stall_s=stall_s))
