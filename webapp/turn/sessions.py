"""A chatter's own sessions: list, open, delete. The one place the owner check and the chatter's view live.

The UI and the API reach stored sessions through here, never through the store directly, so "is this chat
yours?" is answered once, and a reopened chat shows the same words (refusals instead of blocked text) the
pipeline showed while it ran.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from webapp.guard.verdicts import refusal_for
from webapp.store import MessageInfo, SessionInfo, Store

ShownKind = Literal["text", "image", "rail", "error", "stopped"]


@dataclass(frozen=True)
class ShownPart:
    """One piece of a stored chat as its owner may see it again."""

    role: Literal["user", "assistant"]
    kind: ShownKind
    text: str
    reasoning: str = ""


@dataclass(frozen=True)
class ChatSessions:
    store: Store

    def owned(self, owner: str, session_id: str) -> SessionInfo | None:
        """The session if it exists, is not deleted and belongs to ``owner``; else None (never say which)."""
        if not owner or not session_id:
            return None
        info = self.store.get_session(session_id)
        if info is None or info.owner != owner or info.deleted_at is not None:
            return None
        return info

    def recent(self, owner: str, *, limit: int = 50) -> list[SessionInfo]:
        """Newest activity first."""
        return self.store.list_sessions(owner=owner, limit=limit) if owner else []

    def transcript(self, owner: str, session_id: str) -> list[ShownPart] | None:
        """The chat as its owner saw it, or None if it is not theirs."""
        if self.owned(owner, session_id) is None:
            return None
        parts: list[ShownPart] = []
        for message in self.store.messages(session_id):
            parts.extend(shown_parts(message))
        return parts

    def delete(self, owner: str, session_id: str | None) -> bool:
        return bool(session_id) and self.store.soft_delete(session_id or "", owner=owner)


def shown_parts(m: MessageInfo) -> list[ShownPart]:
    """What the chatter saw of one stored message: refusals instead of blocked text, reasoning kept apart."""
    if m.role == "user":
        images = [
            ShownPart("user", "image", f"{a.width}x{a.height}" if not a.error else f"not sent: {a.error}")
            for a in m.attachments
        ]
        return [*images, *([ShownPart("user", "text", m.content)] if m.content else [])]
    if m.role != "assistant":
        return []
    if m.status == "blocked":
        # The blocked text itself is for reviewers only; the chatter sees the refusal again.
        return [ShownPart("assistant", "rail", refusal_for(m.error or "a safety rail blocked it"))]
    if m.status == "error":
        return [ShownPart("assistant", "error", m.error or "This answer failed.")]
    out: list[ShownPart] = []
    if m.content or m.reasoning:
        out.append(ShownPart("assistant", "text", m.content, reasoning=m.reasoning))
    if m.status == "interrupted":
        out.append(ShownPart("assistant", "stopped", "This answer was interrupted."))
    return out
