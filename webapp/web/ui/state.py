"""Who is chatting in this browser tab, and which chat is open.

An anonymous visitor owns their chats by a random id the server issued and signed, kept in the browser;
a signed-in user by name.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webapp.turn.events import ImageInput
from webapp.web import visitors
from webapp.web.ownership import OWNER_PREFIX, OwnerIds


@dataclass
class UIState:
    """Per-browser-tab state: the owner id (anonymous, per browser) and the current session."""

    owner: str = ""
    session_id: str | None = None
    meter: str = ""  # the open chat's context meter, shown once a turn has settled


def new_owner_id() -> str:
    return OWNER_PREFIX + secrets.token_urlsafe(16)


def signed_in_owner(request: Any) -> str | None:
    username = getattr(request, "username", None) if request is not None else None
    return f"user:{username}" if username else None


def settle_owner(request: Any, browser_token: object, ids: OwnerIds) -> tuple[str, str]:
    """(owner, token for the browser to keep). A signed-in user owns their chats by name; an anonymous
    visitor by an id this server issued and signed (a token it did not sign gets a fresh id)."""
    if (user := signed_in_owner(request)) is not None:
        return user, browser_token if isinstance(browser_token, str) else ""
    vouched = visitors.owner_of(dict(getattr(request, "headers", None) or {}))  # demo: signed visitor cookie
    if vouched:
        return vouched, browser_token if isinstance(browser_token, str) else ""
    return ids.settle(browser_token, getattr(request, "session_hash", None))


def current_state(state: UIState | None, browser_token: object, request: Any, ids: OwnerIds) -> UIState:
    """The tab's state with its owner settled (Gradio hands over None before the first event). The owner in
    server-side state was settled earlier; a browser's token counts only with this server's signature."""
    state = state if isinstance(state, UIState) else UIState()
    user = signed_in_owner(request)
    if user is not None:
        state.owner = user
    elif not state.owner.startswith(OWNER_PREFIX):
        state.owner = settle_owner(request, browser_token, ids)[0]
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
