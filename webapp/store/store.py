"""The session store: sessions, messages, attachments, rail events, context records, annotations.

`Store` is the one object callers hold. Every public method is one short transaction: it opens it here and
hands the connection to the module whose job it is (`sessions`, `messages`, `reads`, `transfer`), so the
rules for rows live in one place and several steps can share a transaction when that is wanted.

Synchronous SQLAlchemy Core on one engine, safe to share between threads (async callers use
``asyncio.to_thread``). How transactions are ordered on SQLite and PostgreSQL: see `webapp.store.engine`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection

from webapp.store import messages as message_rows
from webapp.store import sessions, transfer
from webapp.store.engine import FairLock, make_engine, normalize_url, upgrade
from webapp.store.reads import BY_ID, BY_SESSION, load_with
from webapp.store.records import (
    AttachmentIn,
    Client,
    ContextIn,
    FinalStatus,
    MessageInfo,
    MessageRole,
    RailEventIn,
    SessionInfo,
    StoreError,
)

__all__ = ["Store", "StoreError"]


class Store:
    def __init__(self, url: str) -> None:
        self.url = normalize_url(url)
        self.engine = make_engine(self.url)
        # SQLite runs one writer at a time anyway; queueing them here, in order, replaces its busy-wait
        # polling (unfair, and slow to notice a free lock). Other processes still meet the busy timeout.
        self._write_gate: FairLock | None = FairLock() if self.engine.dialect.name == "sqlite" else None
        upgrade(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self, *, write: bool = False) -> AbstractContextManager[Connection]:
        """One short transaction for the store's sibling modules (review, invites, limits)."""
        return self._write() if write else self._read()

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        with self._write_gate or nullcontext(), self.engine.connect() as conn:
            conn.execution_options(write=True)
            with conn.begin():
                yield conn

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            with conn.begin():
                yield conn

    # sessions ------------------------------------------------------------------------------------------

    def create_session(self, *, owner: str, client: Client, model: str, title: str | None = None) -> str:
        with self._write() as conn:
            return sessions.insert_session(conn, owner=owner, client=client, model=model, title=title)

    def get_session(self, session_id: str) -> SessionInfo | None:
        with self._read() as conn:
            return sessions.find_session(conn, session_id)

    def list_sessions(
        self,
        *,
        owner: str | None = None,
        include_deleted: bool = False,
        status: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        rail: str | None = None,
        limit: int = 100,
    ) -> list[SessionInfo]:
        """Newest activity first. status: has a message in that status; rail: has an event of that rail."""
        query = sessions.sessions_query(
            owner=owner,
            include_deleted=include_deleted,
            status=status,
            since=since,
            until=until,
            rail=rail,
            limit=limit,
        )
        with self._read() as conn:
            return [sessions.session_info(row) for row in conn.execute(query)]

    def soft_delete(self, session_id: str, *, owner: str) -> bool:
        """Hide a session from its owner; reviewers still see it. False if not theirs or already deleted."""
        with self._write() as conn:
            return sessions.soft_delete(conn, session_id, owner=owner)

    def purge_older_than(self, days: int) -> int:
        """Delete sessions (deleted or not) without activity for `days` days; returns how many."""
        if days < 0:
            raise StoreError("days must be >= 0")
        with self._write() as conn:
            return sessions.purge_before(conn, sessions.now() - timedelta(days=days))

    def restore(self, session_id: str, *, owner: str) -> bool:
        """Undo a soft delete by the owner. False if not theirs or not deleted."""
        with self._write() as conn:
            return sessions.restore(conn, session_id, owner=owner)

    def set_title(self, session_id: str, title: str | None) -> None:
        with self._write() as conn:
            sessions.set_title(conn, session_id, title)

    # messages ------------------------------------------------------------------------------------------

    def add_message(
        self,
        session_id: str,
        *,
        role: MessageRole,
        content: str,
        status: str = "complete",
        reasoning: str = "",
        mode: str | None = None,
        params: dict[str, Any] | None = None,
        model: str | None = None,
        attachments: Sequence[AttachmentIn] = (),
        error: str | None = None,
        tool_calls: list[dict[str, Any]] | None = None,
        tool_call_id: str | None = None,
    ) -> int:
        with self._write() as conn:
            return message_rows.insert_message(
                conn,
                session_id,
                role=role,
                content=content,
                status=status,
                reasoning=reasoning,
                mode=mode,
                params=params,
                model=model,
                attachments=attachments,
                error=error,
                tool_calls=tool_calls,
                tool_call_id=tool_call_id,
            )

    def finish_user_message(
        self,
        message_id: int,
        *,
        attachments: Sequence[AttachmentIn],
        status: FinalStatus,
        error: str | None = None,
    ) -> None:
        """Give a user message stored as "streaming" (its images still being prepared) its images and its
        final status. Lets the pipeline store the text before it fetches or decodes anything."""
        with self._write() as conn:
            message_rows.finish_user_message(
                conn, message_id, attachments=attachments, status=status, error=error
            )

    def add_answer(
        self,
        session_id: str,
        *,
        context: ContextIn,
        mode: str | None = None,
        params: dict[str, Any] | None = None,
        model: str | None = None,
    ) -> int:
        """A streaming assistant message and the context it is answered from, in one transaction."""
        with self._write() as conn:
            answer_id = message_rows.insert_message(
                conn,
                session_id,
                role="assistant",
                content="",
                status="streaming",
                reasoning="",
                mode=mode,
                params=params,
                model=model,
                attachments=(),
                error=None,
            )
            message_rows.record_context(
                conn, answer_id, context.message_ids, tokens=context.tokens, dropped=context.dropped
            )
            return answer_id

    def checkpoints(self, texts: Sequence[tuple[int, str, str, str]]) -> None:
        """Save the text of several streaming answers, ``(message_id, content, reasoning)`` each, in one
        transaction; answers that became final meanwhile are skipped."""
        with self._write() as conn:
            message_rows.checkpoint_many(conn, texts)

    def checkpoint(
        self, message_id: int, *, content: str, reasoning: str, shown_content: str | None = None
    ) -> None:
        """Save the text streamed so far; one small UPDATE, meant to be called every fraction of a second."""
        with self._write() as conn:
            message_rows.checkpoint(
                conn, message_id, content=content, reasoning=reasoning, shown_content=shown_content
            )

    def finish_message(
        self,
        message_id: int,
        *,
        status: FinalStatus,
        content: str,
        reasoning: str,
        finish_reason: str | None = None,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        ttft_ms: float | None = None,
        duration_ms: float | None = None,
        error: str | None = None,
        shown_content: str | None = None,
        rail_events: Sequence[RailEventIn] = (),
        tool_calls: list[dict[str, Any]] | None = None,
    ) -> None:
        """Give a streaming message its final status and its hash-chain link, and store its rail verdicts,
        in one transaction. Final messages never change."""
        with self._write() as conn:
            message_rows.add_rail_events(conn, message_id, rail_events)
            message_rows.finish(
                conn,
                message_id,
                status=status,
                content=content,
                reasoning=reasoning,
                finish_reason=finish_reason,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                ttft_ms=ttft_ms,
                duration_ms=duration_ms,
                error=error,
                shown_content=shown_content,
                tool_calls=tool_calls,
            )

    def mark_interrupted(self) -> int:
        """At startup: every message still "streaming" was cut off by a crash; make it "interrupted".

        Call it before serving, from one process: it cannot tell another live process's streams apart.
        """
        with self._write() as conn:
            return message_rows.interrupt_streaming(conn)

    def add_rail_event(
        self, message_id: int, *, stage: str, rail: str, decision: str, reason: str, latency_ms: float
    ) -> None:
        with self._write() as conn:
            message_rows.add_rail_event(
                conn,
                message_id,
                stage=stage,
                rail=rail,
                decision=decision,
                reason=reason,
                latency_ms=latency_ms,
            )

    def add_rail_events(self, message_id: int, events: Sequence[RailEventIn]) -> None:
        """A message's rail verdicts, in one transaction."""
        if events:
            with self._write() as conn:
                message_rows.add_rail_events(conn, message_id, events)

    def record_context(
        self, answer_id: int, message_ids: Sequence[int], *, tokens: int, dropped: int
    ) -> None:
        """Remember which messages (in order) the model saw for an answer."""
        with self._write() as conn:
            message_rows.record_context(conn, answer_id, message_ids, tokens=tokens, dropped=dropped)

    def add_annotation(self, message_id: int, *, author: str, text: str, label: str = "") -> int:
        with self._write() as conn:
            return message_rows.add_annotation(conn, message_id, author=author, text=text, label=label)

    # reads ---------------------------------------------------------------------------------------------

    def messages(self, session_id: str) -> list[MessageInfo]:
        """The transcript in seq order, with attachments (bytes included), rail events, context, notes."""
        with self._read() as conn:
            return load_with(conn, BY_SESSION, {"which": session_id})

    def message(self, message_id: int) -> MessageInfo | None:
        with self._read() as conn:
            found = load_with(conn, BY_ID, {"which": message_id})
        return found[0] if found else None

    # export / import -----------------------------------------------------------------------------------

    def export_jsonl(self, session_id: str) -> str:
        """One JSON object per line: the session, then its messages in seq order (bytes as base64)."""
        with self._read() as conn:
            session = sessions.find_session(conn, session_id)
            if session is None:
                raise StoreError(f"no session {session_id!r}")
            transcript = load_with(conn, BY_SESSION, {"which": session_id})
        return transfer.to_jsonl(session, transcript)

    def import_jsonl(self, text: str) -> str:
        """Load an export. Keeps the session id unless taken. Raises StoreError if a hash does not match."""
        head, records = transfer.parse_jsonl(text)
        with self._write() as conn:
            return transfer.import_session(conn, head, records)
