"""The statements every turn runs, built once with named parameters.

Building a Core statement and computing its cache key costs more CPU than SQLite running it: a profile of
one turn's writes had about 70% of its time in statement construction and cache keys and 4% in sqlite3.
A statement object built once keeps its cache key, so each call is only a lookup of the compiled form and
the execution. Values are always parameters; a value that must be SQL NULL (not JSON ``null``) is left out
of an INSERT's parameters instead, and an UPDATE that may set a JSON column has a variant without it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import BindParameter, bindparam, delete, insert, select, update

from webapp.store.models import ATTACHMENTS, CONTEXT, MESSAGES, RAIL_EVENTS, SESSIONS

INSERT_SESSION = insert(SESSIONS)
INSERT_MESSAGE = insert(MESSAGES).returning(MESSAGES.c.id)
INSERT_RAIL_EVENTS = insert(RAIL_EVENTS)
INSERT_CONTEXT = insert(CONTEXT)

# The session row is the allocator of seq numbers and chain links: its row lock orders writers of a session.
NEXT_SEQ = (
    update(SESSIONS)
    .where(SESSIONS.c.id == bindparam("sid"))
    .values(message_count=SESSIONS.c.message_count + 1, updated_at=bindparam("at"))
    .returning(SESSIONS.c.message_count)
)
NEXT_LINK = (
    update(SESSIONS)
    .where(SESSIONS.c.id == bindparam("sid"))
    .values(chain_length=SESSIONS.c.chain_length + 1)
    .returning(SESSIONS.c.chain_length, SESSIONS.c.chain_head)
)
# The final write of a streamed answer touches its session and takes the next link in one statement.
TOUCH_AND_NEXT_LINK = (
    update(SESSIONS)
    .where(SESSIONS.c.id == bindparam("sid"))
    .values(chain_length=SESSIONS.c.chain_length + 1, updated_at=bindparam("at"))
    .returning(SESSIONS.c.chain_length, SESSIONS.c.chain_head)
)
SET_CHAIN_HEAD = (
    update(SESSIONS).where(SESSIONS.c.id == bindparam("sid")).values(chain_head=bindparam("head"))
)
SET_MESSAGE_LINK = (
    update(MESSAGES)
    .where(MESSAGES.c.id == bindparam("mid"))
    .values(chain_pos=bindparam("pos"), prev_hash=bindparam("prev"), hash=bindparam("digest"))
)

_FINAL_VALUES: dict[str, BindParameter[Any]] = {
    name: bindparam(f"new_{name}")
    for name in (
        "status",
        "content",
        "reasoning",
        "finish_reason",
        "prompt_tokens",
        "completion_tokens",
        "ttft_ms",
        "duration_ms",
        "error",
        "shown_content",
        "updated_at",
    )
}
_FINISH = update(MESSAGES).where(MESSAGES.c.id == bindparam("mid"), MESSAGES.c.status == "streaming")
_FINISHED = (MESSAGES.c.session_id, MESSAGES.c.seq, MESSAGES.c.role)
FINISH = _FINISH.values(**_FINAL_VALUES).returning(*_FINISHED)
FINISH_WITH_TOOL_CALLS = _FINISH.values(**_FINAL_VALUES, tool_calls=bindparam("new_tool_calls")).returning(
    *_FINISHED
)

CHECKPOINT = (
    update(MESSAGES)
    .where(MESSAGES.c.id == bindparam("message_id"), MESSAGES.c.status == "streaming")
    .values(
        content=bindparam("new_content"),
        reasoning=bindparam("new_reasoning"),
        shown_content=bindparam("new_shown"),
        updated_at=bindparam("at"),
    )
)
SET_CONTEXT = (
    update(MESSAGES)
    .where(MESSAGES.c.id == bindparam("mid"))
    .values(context_tokens=bindparam("tokens"), context_dropped=bindparam("dropped"))
)
CLEAR_CONTEXT = delete(CONTEXT).where(CONTEXT.c.answer_id == bindparam("mid"))
SESSION_OF_MESSAGE = select(MESSAGES.c.session_id).where(MESSAGES.c.id == bindparam("mid"))
ATTACHMENT_PAIRS = (
    select(ATTACHMENTS.c.sha256, ATTACHMENTS.c.data_sha256)
    .where(ATTACHMENTS.c.message_id == bindparam("mid"))
    .order_by(ATTACHMENTS.c.position)
)
