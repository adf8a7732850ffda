"""Writes that share one transaction: an answer with its context, many checkpoints, a final answer with its
rail verdicts (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from webapp.store import ContextIn, RailEventIn, Store
from webapp.store.audit import verify_session


@pytest.fixture
def db(db_url: str) -> Iterator[Store]:
    store = Store(db_url)
    yield store
    store.close()


def test_an_answer_starts_with_its_context_and_ends_with_its_verdicts(db: Store) -> None:
    session_id = db.create_session(owner="alice", client="api", model="m", title="t")
    question = db.add_message(session_id, role="user", content="q")
    db.add_rail_events(question, [RailEventIn("input", "url_allowlist", "allow", "fine", 0.5)])
    answer = db.add_answer(session_id, context=ContextIn((question,), 12, 0), mode="instant", model="m")
    started = db.message(answer)
    assert started is not None and started.status == "streaming" and started.role == "assistant"
    assert (started.context_message_ids, started.context_tokens) == ([question], 12)
    db.finish_message(
        answer,
        status="complete",
        content="a",
        reasoning="",
        rail_events=[
            RailEventIn("output", "url_allowlist", "allow", "64 streamed checks passed", 1.0),
            RailEventIn("output", "moderation", "allow", "64 streamed checks passed", 2.0),
        ],
    )
    done = db.message(answer)
    assert done is not None and done.status == "complete"
    assert [(e.rail, e.reason) for e in done.rail_events] == [
        ("url_allowlist", "64 streamed checks passed"),
        ("moderation", "64 streamed checks passed"),
    ]
    first = db.message(question)
    assert first is not None and [e.rail for e in first.rail_events] == ["url_allowlist"]
    assert verify_session(db, session_id).ok


def test_checkpoints_of_many_answers_in_one_call_skip_final_ones(db: Store) -> None:
    session_id = db.create_session(owner="alice", client="api", model="m", title="t")
    context = ContextIn((), 0, 0)
    first, second = (db.add_answer(session_id, context=context) for _ in range(2))
    db.finish_message(first, status="complete", content="final", reasoning="")
    db.checkpoints([(first, "late", "", "late"), (second, "partial", "thinking", "part")])
    kept, saved = db.message(first), db.message(second)
    assert kept is not None and kept.content == "final"  # a final answer never changes
    assert saved is not None and (saved.content, saved.reasoning, saved.status) == (
        "partial",
        "thinking",
        "streaming",
    )
    assert saved.shown_content == "part"  # what the chatter saw, for a reopened chat
    db.checkpoints([])  # nothing to save is not an error
