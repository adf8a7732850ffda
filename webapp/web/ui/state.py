"""Who is chatting in this browser tab, and which chat is open.

The owner is settled on every event from the request, never from the event's data: a signed-in user by name,
an anonymous browser by the signed id ``OwnerCookie`` vouched for (see webapp/web/ownership.py).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webapp.turn.events import ImageInput
from webapp.web.ownership import OWNER_PREFIX, owner_of


@dataclass
class UIState:
    """Per-browser-tab state: the owner id and the current session."""

    owner: str = ""
    session_id: str | None = None
    meter: str = ""  # the open chat's context meter, shown once a turn has settled


def nobody() -> str:
    """An owner nobody else has: for a request that carries no vouched id (it then sees no chats)."""
    return OWNER_PREFIX + "unvouched-" + secrets.token_urlsafe(16)


def request_owner(request: Any) -> str:
    return owner_of(request) or nobody()


def current_state(state: UIState | None, request: Any) -> UIState:
    """The tab's state with its owner settled from this request (Gradio hands over None before the first
    event). A chat opened under another owner is closed: the new owner must open it through the owner check."""
    state = state if isinstance(state, UIState) else UIState()
    owner = request_owner(request)
    if state.owner != owner:
        state.owner, state.session_id = owner, None
    return state


def read_files(paths: list[str]) -> list[ImageInput]:
    # A file that vanished from Gradio's cache reads as empty: the image step then reports it by name.
    images = []
    for path in paths:
        try:
            data = Path(path).read_bytes()
        except OSError:
            data = b""
        images.append(ImageInput(data, name=Path(path).name))
    return images
