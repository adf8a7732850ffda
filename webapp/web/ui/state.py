"""Who is chatting in this browser tab, and which chat is open.

An anonymous visitor owns their chats by a random id kept in the browser; a signed-in user by name.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webapp.turn.events import ImageInput
from webapp.web import visitors


@dataclass
class UIState:
    """Per-browser-tab state: the owner id (anonymous, per browser) and the current session."""

    owner: str = ""
    session_id: str | None = None


def new_owner_id() -> str:
    return "browser:" + secrets.token_urlsafe(12)


def owner_id(request: Any, browser_id: str) -> str:
    """A signed-in user owns their chats by name; an anonymous visitor by a random id kept in the browser."""
    username = getattr(request, "username", None) if request is not None else None
    if username:
        return f"user:{username}"
    vouched = visitors.owner_of(dict(getattr(request, "headers", None) or {}))  # demo: signed visitor id
    if vouched:
        return vouched
    return browser_id if browser_id.startswith("browser:") else new_owner_id()


def current_state(state: UIState | None, browser_id: str, request: Any) -> UIState:
    """The tab's state with its owner settled (Gradio hands over None before the first event)."""
    state = state if isinstance(state, UIState) else UIState()
    state.owner = owner_id(request, state.owner or browser_id)
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
