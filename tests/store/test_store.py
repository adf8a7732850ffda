"""The session store, on SQLite and PostgreSQL (fixtures in tests/support/pg.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import func, select, text, update

from webapp.store import AttachmentIn, MessageInfo, Store, StoreError
from webapp.store.audit import verify_session
from webapp.store.engine import normalize_url
from webapp.store.models import BLOBS, MESSAGES, SESSIONS, Base
from webapp.store.textsearch import is_search_index


@pytest.fixture
def db(db_url: str) -> Iterator[Store]:
    store = Store(db_url)
    yield store
    store.close()


def image(data: bytes = b"\x89PNG-bytes", original: str = "a" * 64, error: str | None = None) -> AttachmentIn:
    return AttachmentIn(
        sha256=original,
        mime="image/png",
        size=len(data) + 100,
        width=4,
        height=3,
        data=data,
        thumbnail=b"thumb-" + data,
        error=error,
    )


def new_session(db: Store, owner: str = "alice", client: str = "ui") -> str:
    return db.create_session(owner=owner, client=client, model="m", title="t")  # type: ignore[arg-type]


def one(db: Store, message_id: int) -> MessageInfo:
    found = db.message(message_id)
    assert found is not None
    return found


def turn(db: Store, session_id: str, question: str = "hi", answer: str = "hello") -> tuple[int, int]:
    user = db.add_message(session_id, role="user", content=question)
    bot = db.add_message(
        session_id,
        role="assistant",
        content="",
        status="streaming",
        mode="instant",
        params={"temperature": 0.6},
        model="m",
    )
    db.finish_message(
        bot,
        status="complete",
        content=answer,
        reasoning="thought",
        finish_reason="stop",
        prompt_tokens=5,
        completion_tokens=2,
        ttft_ms=12.5,
        duration_ms=40.0,
    )
    return user, bot


def test_migration_creates_exactly_the_models_tables(db: Store) -> None:
    with db.engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"include_name": lambda name, *_: not is_search_index(name)}
        )
        diff = compare_metadata(context, Base.metadata)
        version = conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
    assert diff == []
    assert version == "0004"


def test_reopening_an_existing_database_keeps_its_data(db_url: str) -> None:
    with Store(db_url) as first:
        session_id = new_session(first)
        first.add_message(session_id, role="user", content="kept")
    with Store(db_url) as second:
        assert [m.content for m in second.messages(session_id)] == ["kept"]


def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path) -> None:
    with Store(f"sqlite:///{tmp_path}/sub/dir/x.db") as store, store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000


def test_postgres_urls_use_psycopg3() -> None:
    assert normalize_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_url("sqlite:///x.db") == "sqlite:///x.db"


def test_sessions_get_random_ids_and_utc_timestamps(db: Store) -> None:
    ids = {new_session(db) for _ in range(20)}
    assert len(ids) == 20 and all(len(i) >= 20 for i in ids)
    info = db.get_session(next(iter(ids)))
    assert info is not None
    assert (info.owner, info.client, info.model, info.title) == ("alice", "ui", "m", "t")
    assert info.message_count == 0
    assert info.created_at.tzinfo == UTC
    assert abs(datetime.now(UTC) - info.created_at) < timedelta(minutes=1)
    assert db.get_session("nope") is None
    with pytest.raises(StoreError):
        db.create_session(owner="a", client="web", model="m")  # type: ignore[arg-type]


def test_a_turn_is_stored_with_everything_reviewers_need(db: Store) -> None:
    session_id = new_session(db)
    user, bot = turn(db, session_id)
    db.add_rail_event(
        bot, stage="output", rail="moderation", decision="allow", reason="clean", latency_ms=3.5
    )
    db.record_context(bot, [user], tokens=42, dropped=3)
    note = db.add_annotation(bot, author="rita", text="fine")
    first, second = db.messages(session_id)
    assert (first.seq, first.role, first.content, first.status) == (1, "user", "hi", "complete")
    assert (second.seq, second.status, second.content, second.reasoning) == (
        2,
        "complete",
        "hello",
        "thought",
    )
    assert (second.mode, second.params, second.model) == ("instant", {"temperature": 0.6}, "m")
    assert second.finish_reason == "stop"
    assert (second.prompt_tokens, second.completion_tokens) == (5, 2)
    assert (second.ttft_ms, second.duration_ms) == (12.5, 40.0)
    assert second.context_message_ids == [user]
    assert (second.context_tokens, second.context_dropped) == (42, 3)
    assert [(e.stage, e.rail, e.decision, e.reason, e.latency_ms) for e in second.rail_events] == [
        ("output", "moderation", "allow", "clean", 3.5)
    ]
    assert [(n.id, n.author, n.text) for n in second.annotations] == [(note, "rita", "fine")]
    assert db.get_session(session_id).message_count == 2
    assert db.message(bot) == second


def test_adding_to_an_unknown_session_fails(db: Store) -> None:
    with pytest.raises(StoreError):
        db.add_message("missing", role="user", content="x")
    with pytest.raises(StoreError):
        db.add_message(new_session(db), role="function", content="x")  # type: ignore[arg-type]


def test_attachments_round_trip_and_share_bytes(db: Store) -> None:
    session_id = new_session(db)
    same = image(b"same bytes")
    broken = AttachmentIn(
        sha256="b" * 64, mime="", size=9, width=0, height=0, data=b"", thumbnail=None, error="not an image"
    )
    db.add_message(session_id, role="user", content="two", attachments=[same, broken])
    db.add_message(session_id, role="user", content="again", attachments=[same])
    first, second = db.messages(session_id)
    a, b = first.attachments
    assert (a.sha256, a.mime, a.size, a.width, a.height, a.data, a.thumbnail, a.error) == (
        "a" * 64,
        "image/png",
        110,
        4,
        3,
        b"same bytes",
        b"thumb-same bytes",
        None,
    )
    assert (b.data, b.thumbnail, b.error, b.position) == (b"", None, "not an image", 1)
    assert second.attachments[0].data == b"same bytes"
    with db.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(BLOBS)).scalar_one() == 3  # bytes, thumb, empty


def test_streaming_answer_is_checkpointed_then_finished_once(db: Store) -> None:
    session_id = new_session(db)
    db.add_message(session_id, role="user", content="q")
    bot = db.add_message(session_id, role="assistant", content="", status="streaming")
    assert one(db, bot).hash is None
    db.checkpoint(bot, content="partial", reasoning="thinking")
    saved = one(db, bot)
    assert (saved.status, saved.content, saved.reasoning) == ("streaming", "partial", "thinking")
    db.finish_message(
        bot,
        status="blocked",
        content="bad text",
        reasoning="r",
        shown_content="refused",
        error=None,
        finish_reason="content_filter",
    )
    done = one(db, bot)
    assert (done.status, done.content, done.shown_content) == ("blocked", "bad text", "refused")
    assert done.hash is not None
    with pytest.raises(StoreError):
        db.finish_message(bot, status="complete", content="rewritten", reasoning="")
    with pytest.raises(StoreError):
        db.checkpoint(bot, content="late", reasoning="")
    with pytest.raises(StoreError):
        db.finish_message(bot, status="streaming", content="", reasoning="")  # type: ignore[arg-type]
    assert one(db, bot).content == "bad text"


def test_hash_chain_links_messages_in_the_order_they_became_final(db: Store) -> None:
    session_id = new_session(db)
    turn(db, session_id)
    slow = db.add_message(session_id, role="assistant", content="", status="streaming")
    later = db.add_message(session_id, role="user", content="next question")
    db.finish_message(slow, status="error", content="cut", reasoning="", error="upstream died")
    messages = db.messages(session_id)
    assert [m.chain_pos for m in messages] == [1, 2, 4, 3]
    assert messages[0].prev_hash == ""
    assert messages[1].prev_hash == messages[0].hash
    assert one(db, later).prev_hash == messages[1].hash
    assert one(db, slow).prev_hash == one(db, later).hash
    assert verify_session(db, session_id).ok
    assert db.get_session(session_id).chain_head == one(db, slow).hash


def test_mark_interrupted_closes_every_stream(db: Store) -> None:
    session_id = new_session(db)
    db.add_message(session_id, role="user", content="q")
    bot = db.add_message(session_id, role="assistant", content="", status="streaming")
    db.checkpoint(bot, content="half an answ", reasoning="some thought")
    other = new_session(db)
    db.add_message(other, role="assistant", content="", status="streaming")
    assert db.mark_interrupted() == 2
    cut = one(db, bot)
    assert (cut.status, cut.content, cut.reasoning) == ("interrupted", "half an answ", "some thought")
    assert cut.error
    assert verify_session(db, session_id).ok and verify_session(db, other).ok
    assert db.mark_interrupted() == 0


def test_list_sessions_filters(db: Store) -> None:
    a = new_session(db, owner="alice")
    b = new_session(db, owner="bob", client="api")
    c = new_session(db, owner="alice", client="demo")
    turn(db, a)
    blocked = db.add_message(b, role="assistant", content="", status="streaming")
    db.finish_message(blocked, status="blocked", content="x", reasoning="")
    db.add_rail_event(
        blocked, stage="output", rail="url_allowlist", decision="block", reason="evil.example", latency_ms=1
    )
    assert [s.id for s in db.list_sessions()] == [b, a, c]  # newest activity first
    assert [s.id for s in db.list_sessions(owner="alice")] == [a, c]
    assert [s.id for s in db.list_sessions(status="blocked")] == [b]
    assert [s.id for s in db.list_sessions(rail="url_allowlist")] == [b]
    assert [s.id for s in db.list_sessions(rail="moderation")] == []
    assert [s.id for s in db.list_sessions(limit=1)] == [b]
    future = datetime.now(UTC) + timedelta(hours=1)
    assert db.list_sessions(since=future) == []
    assert len(db.list_sessions(until=future)) == 3
    assert db.list_sessions(owner="alice")[0].message_count == 2


def test_soft_delete_hides_from_owner_but_not_from_audit(db: Store) -> None:
    session_id = new_session(db, owner="alice")
    turn(db, session_id)
    assert not db.soft_delete(session_id, owner="mallory")
    assert db.soft_delete(session_id, owner="alice")
    assert not db.soft_delete(session_id, owner="alice")
    assert db.list_sessions(owner="alice") == []
    assert [s.id for s in db.list_sessions(include_deleted=True)] == [session_id]
    info = db.get_session(session_id)
    assert info is not None and info.deleted_at is not None
    assert len(db.messages(session_id)) == 2


def test_purge_removes_old_sessions_and_orphaned_bytes(db: Store) -> None:
    old, recent = new_session(db), new_session(db)
    db.add_message(old, role="user", content="old", attachments=[image(b"only old"), image(b"shared")])
    user, bot = turn(db, old)
    db.record_context(bot, [user], tokens=1, dropped=0)
    db.add_rail_event(bot, stage="input", rail="r", decision="allow", reason="", latency_ms=0)
    db.add_annotation(bot, author="r", text="n")
    db.add_message(recent, role="user", content="new", attachments=[image(b"shared")])
    with db.engine.begin() as conn:
        conn.execute(
            update(SESSIONS)
            .where(SESSIONS.c.id == old)
            .values(updated_at=datetime.now(UTC) - timedelta(days=40))
        )
    assert db.purge_older_than(30) == 1
    assert db.get_session(old) is None and db.messages(old) == []
    assert db.messages(recent)[0].attachments[0].data == b"shared"
    with db.engine.connect() as conn:
        blobs = set(conn.execute(select(BLOBS.c.data)).scalars())
        assert conn.execute(select(func.count()).select_from(MESSAGES)).scalar_one() == 1
    assert blobs == {b"shared", b"thumb-shared"}
    assert db.purge_older_than(30) == 0


def test_export_import_round_trip(db: Store, tmp_path) -> None:
    session_id = new_session(db)
    user = db.add_message(session_id, role="user", content="look ✓", attachments=[image()])
    bot = db.add_message(session_id, role="assistant", content="", status="streaming", params={"top_p": 0.9})
    db.record_context(bot, [user], tokens=300, dropped=0)
    db.add_rail_event(bot, stage="output", rail="moderation", decision="block", reason="r", latency_ms=2)
    db.finish_message(bot, status="blocked", content="raw", reasoning="why", shown_content="refusal")
    db.add_annotation(bot, author="rita", text="correct block")
    db.add_message(session_id, role="user", content="still typing?")
    exported = db.export_jsonl(session_id)

    with Store(f"sqlite:///{tmp_path}/other.db") as other:
        copy_id = other.import_jsonl(exported)
        assert copy_id == session_id
        assert other.export_jsonl(copy_id) == exported
        assert verify_session(other, copy_id).ok
    second_id = db.import_jsonl(exported)  # the id is taken here: a new one
    assert second_id != session_id
    assert db.export_jsonl(second_id) == exported.replace(session_id, second_id)
    records = [json.loads(line) for line in exported.splitlines()]
    assert [r["type"] for r in records] == ["session", "message", "message", "message"]


def test_an_export_holding_unicode_line_ends_imports_whole(db: Store, tmp_path) -> None:
    """U+2028, U+2029 and U+0085 are line ends to ``str.splitlines``: raw in an export they split a record."""
    session_id = new_session(db)
    text = "one\u2028two\u2029three\x85four"
    turn(db, session_id, answer=text)
    exported = db.export_jsonl(session_id)
    assert len(exported.splitlines()) == len(exported.split("\n")) - 1 == 3
    with Store(f"sqlite:///{tmp_path}/other.db") as other:
        copy_id = other.import_jsonl(exported)
        assert [m.content for m in other.messages(copy_id)][-1] == text
    raw = exported.replace("\\u2028", "\u2028")  # an export written before the escape still reads
    assert db.import_jsonl(raw) != session_id


def test_import_refuses_a_tampered_export(db: Store) -> None:
    session_id = new_session(db)
    turn(db, session_id, answer="the real answer")
    tampered = db.export_jsonl(session_id).replace("the real answer", "a nicer answer")
    with pytest.raises(StoreError, match="seq 2"):
        db.import_jsonl(tampered)
    with pytest.raises(StoreError):
        db.import_jsonl('{"type": "something else"}\n')


def test_session_ids_never_look_like_command_line_options() -> None:
    from webapp.store.sessions import new_session_id

    ids = [new_session_id() for _ in range(5000)]
    assert not any(i.startswith("-") for i in ids)
    assert len(set(ids)) == len(ids) and all(len(i) >= 20 for i in ids)


def test_a_user_message_can_get_its_images_after_its_text(db: Store) -> None:
    session_id = new_session(db)
    message_id = db.add_message(session_id, role="user", content="look at this", status="streaming")
    assert one(db, message_id).hash is None  # not final yet: no chain link
    db.finish_user_message(message_id, attachments=[image()], status="complete")
    stored = one(db, message_id)
    assert (stored.status, stored.content, len(stored.attachments)) == ("complete", "look at this", 1)
    assert verify_session(db, session_id).ok  # the link covers the images attached afterwards
    with pytest.raises(StoreError):
        db.finish_user_message(message_id, attachments=[], status="error", error="twice")
