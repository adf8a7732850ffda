"""A chatter's own sessions: list, search, open, rename, delete and undo. The one place the owner check and
the chatter's view of a stored chat live.

The UI and the API reach stored sessions through here, never through the store directly, so "is this chat
yours?" is answered once, and a reopened chat shows the same words the pipeline showed while it ran:
refusals instead of blocked text, and of an interrupted answer only what had passed the rails.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from webapp.guard.verdicts import refusal_for
from webapp.store import MessageInfo, SessionInfo, Store

ShownKind = Literal["text", "image", "rail", "error", "stopped", "info"]
MAX_TITLE_CHARS = 80


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

    def owned(self, owner: str, session_id: str | None) -> SessionInfo | None:
        """The session if it exists, is not deleted and belongs to ``owner``; else None (never say which)."""
        if not owner or not session_id:
            return None
        info = self.store.get_session(session_id)
        if info is None or info.owner != owner or info.deleted_at is not None:
            return None
        return info

    def recent(self, owner: str, *, query: str = "", limit: int = 50) -> list[SessionInfo]:
        """Newest activity first; ``query`` keeps the chats whose title contains it (any case)."""
        if not owner:
            return []
        needle = query.strip().casefold()
        sessions = self.store.list_sessions(owner=owner, limit=limit if not needle else 500)
        return [s for s in sessions if needle in (s.title or "").casefold()][:limit]

    def transcript(self, owner: str, session_id: str | None) -> list[ShownPart] | None:
        """The chat as its owner saw it, or None if it is not theirs."""
        if self.owned(owner, session_id) is None or session_id is None:
            return None
        return chatter_view(self.store.messages(session_id))

    def answering(self, owner: str, session_id: str | None) -> bool:
        """Whether an answer in this chat is still being written (e.g. a stopped one not yet stored)."""
        if self.owned(owner, session_id) is None or session_id is None:
            return False
        return any(m.status == "streaming" for m in self.store.messages(session_id))

    def last_user_message(self, owner: str, session_id: str | None) -> MessageInfo | None:
        """The newest message the owner sent in this chat (what Retry answers again)."""
        if self.owned(owner, session_id) is None or session_id is None:
            return None
        users = [m for m in self.store.messages(session_id) if m.role == "user"]
        return users[-1] if users else None

    def rename(self, owner: str, session_id: str | None, title: str) -> bool:
        title = " ".join(title.split())[:MAX_TITLE_CHARS]
        if not title or self.owned(owner, session_id) is None or session_id is None:
            return False
        self.store.set_title(session_id, title)
        return True

    def delete(self, owner: str, session_id: str | None) -> bool:
        return bool(session_id) and self.store.soft_delete(session_id or "", owner=owner)

    def restore(self, owner: str, session_id: str | None) -> bool:
        return bool(session_id) and self.store.restore(session_id or "", owner=owner)


def chatter_view(messages: Sequence[MessageInfo]) -> list[ShownPart]:
    """Stored messages as the chatter saw them. An answer replaced by Retry is left out (kept for audit)."""
    parts: list[ShownPart] = []
    for index, message in enumerate(messages):
        following = messages[index + 1] if index + 1 < len(messages) else None
        if message.role == "assistant" and following is not None and following.role == "assistant":
            continue
        parts.extend(shown_parts(message))
    return parts


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
    # An unfinished answer (stopped, cut by a crash, still streaming) may hold text the rails had not passed
    # yet: only what the chatter was shown comes back. Its reasoning is not tracked that way, so it stays out.
    complete = m.status == "complete"
    content = m.content if complete else m.shown_content or ""
    reasoning = m.reasoning if complete else ""
    out: list[ShownPart] = []
    if content or reasoning:
        out.append(ShownPart("assistant", "text", content, reasoning=reasoning))
    if m.status == "interrupted":
        out.append(ShownPart("assistant", "stopped", "This answer was interrupted."))
    elif complete and m.finish_reason == "length":
        out.append(ShownPart("assistant", "info", length_note(m.completion_tokens)))
    return out


def length_note(tokens: int | None) -> str:
    """Said under an answer the model ended because it ran out of tokens, which otherwise stops mid-word
    and looks like a fault; the same words live and when the chat is reopened."""
    spent = f" ({tokens:,} tokens)" if tokens else ""
    return f'This answer reached its length limit{spent} and ends there. Send "continue" for the rest.'
