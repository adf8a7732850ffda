"""Reviewer queries: every filter, keyset paging, annotations beside the hash chain, the export walk."""

from __future__ import annotations

import pytest

from tests.support.review_data import LEAK, seed
from webapp.store import Store, StoreError, review, review_export
from webapp.store.audit import verify_session
from webapp.store.review import SessionFilter


def ids(store: Store, **filters: object) -> set[str]:
    page = review.list_sessions(store, SessionFilter(**filters), limit=200)  # type: ignore[arg-type]
    return {s.id for s in page.sessions}


def test_every_filter_selects_what_it_names(store: Store) -> None:
    s = seed(store)
    everything = {s.weather, s.leak, s.image, s.demo, s.gone}
    assert ids(store) == everything  # reviewers see deleted chats too
    assert ids(store, owner="user:alice") == {s.weather, s.leak}
    assert ids(store, client="demo") == {s.demo}
    assert ids(store, client="api") == {s.image}
    assert ids(store, status="blocked") == {s.leak, s.demo}
    assert ids(store, status="error") == {s.image}
    assert ids(store, rail="url_allowlist") == {s.leak}
    assert ids(store, rail="moderation") == {s.demo}
    assert ids(store, model="m2") == {s.image}
    assert ids(store, since=s.cutoff) == everything - {s.weather}
    assert ids(store, until=s.cutoff) == {s.weather}
    assert ids(store, q="sunny") == {s.weather}  # answer text
    assert ids(store, q="HIDE A LINK") == {s.leak}  # reasoning, any case
    assert ids(store, q="picture") == {s.image}  # title
    assert ids(store, q="100%") == set()  # LIKE wildcards are literal
    assert ids(store, owner="user:alice", status="blocked", rail="url_allowlist") == {s.leak}


def test_a_rail_that_only_allowed_does_not_match(store: Store) -> None:
    s = seed(store)
    msg = store.messages(s.weather)[1].id
    store.add_rail_event(msg, stage="output", rail="moderation", decision="allow", reason="", latency_ms=1)
    assert ids(store, rail="moderation") == {s.demo}


def test_summaries_count_statuses_and_name_blocking_rails(store: Store) -> None:
    s = seed(store)
    by_id = {x.id: x for x in review.list_sessions(store, SessionFilter()).sessions}
    assert by_id[s.leak].statuses == {"complete": 3, "blocked": 1}
    assert by_id[s.leak].rails == ["url_allowlist"]
    assert by_id[s.leak].message_count == 4
    assert by_id[s.gone].deleted and not by_id[s.leak].deleted


def test_cursor_pages_through_everything_once_newest_first(store: Store) -> None:
    s = seed(store)
    seen, cursor = [], None
    while True:
        page = review.list_sessions(store, SessionFilter(), limit=2, cursor=cursor)
        seen += page.sessions
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert len(seen) == 5 and len({x.id for x in seen}) == 5
    assert [x.updated_at for x in seen] == sorted((x.updated_at for x in seen), reverse=True)
    assert seen[-1].id == s.weather


@pytest.mark.parametrize("cursor", ["garbage!", "bm90LWEtY3Vyc29y", ""])
def test_a_forged_cursor_is_a_clear_error(store: Store, cursor: str) -> None:
    seed(store)
    if cursor == "":
        assert review.list_sessions(store, SessionFilter(), cursor=cursor).sessions
        return
    with pytest.raises(StoreError, match="cursor"):
        review.list_sessions(store, SessionFilter(), cursor=cursor)


def test_annotations_never_touch_the_chain(store: Store) -> None:
    s = seed(store)
    before = store.get_session(s.leak)
    on_message = review.add_annotation(
        store, s.leak, message_id=s.blocked_answer, author="user:rita", label="correct block", note="exfil"
    )
    on_session = review.add_annotation(
        store, s.leak, message_id=None, author="user:rita", label="ok", note=""
    )
    notes = review.session_annotations(store, s.leak)
    assert [(n.id, n.message_id, n.label) for n in notes] == [
        (on_message.id, s.blocked_answer, "correct block"),
        (on_session.id, None, "ok"),
    ]
    assert store.get_session(s.leak) == before
    assert verify_session(store, s.leak).ok
    assert store.message(s.blocked_answer).content == LEAK  # type: ignore[union-attr]


def test_annotations_are_checked(store: Store) -> None:
    s = seed(store)
    other = store.messages(s.weather)[0].id
    with pytest.raises(review.NotFound):
        review.add_annotation(store, s.leak, message_id=other, author="r", label="x", note="")
    with pytest.raises(review.NotFound):
        review.add_annotation(store, "nope", message_id=None, author="r", label="x", note="")
    with pytest.raises(StoreError, match="label"):
        review.add_annotation(store, s.leak, message_id=None, author="r", label="  ", note="")
    with pytest.raises(StoreError, match="label"):
        review.add_annotation(store, s.leak, message_id=None, author="r", label="x" * 101, note="")


def test_export_rows_follow_the_filters_in_list_order(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    s = seed(store)
    monkeypatch.setattr(review_export, "EXPORT_BATCH", 2)  # several batches
    rows = list(review_export.export_rows(store, SessionFilter()))
    assert len(rows) == 2 + 4 + 2 + 2 + 1
    order = [x.id for x in review.list_sessions(store, SessionFilter()).sessions]
    assert list(dict.fromkeys(r["session_id"] for r in rows)) == order
    blocked = next(r for r in rows if r["message_id"] == s.blocked_answer)
    assert blocked["content"] == LEAK and blocked["status"] == "blocked"
    assert blocked["rail_events"] == [
        {"stage": "output", "rail": "url_allowlist", "decision": "block", "reason": "evil.example"}
    ]
    assert blocked["context_dropped"] == 2 and len(blocked["context_message_ids"]) == 1
    assert {r["session_id"] for r in review_export.export_rows(store, SessionFilter(client="api"))} == {
        s.image
    }


def test_stored_image_by_original_hash(store: Store) -> None:
    s = seed(store)
    data = review.stored_image(store, s.image_sha)
    thumb = review.stored_image(store, s.image_sha, thumbnail=True)
    assert data is not None and data.startswith(b"\x89PNG") and thumb is not None and thumb != data
    assert review.stored_image(store, "0" * 64) is None


def test_overview_counts_turns_blocks_and_errors(store: Store) -> None:
    seed(store)
    data = review.overview(store, SessionFilter())
    assert sum(t["count"] for t in data["turns"]) == 5  # assistant messages
    assert {(b["rail"], b["stage"], b["count"]) for b in data["blocks"]} == {
        ("url_allowlist", "output", 1),
        ("moderation", "input", 1),
    }
    assert sum(e["count"] for e in data["errors"]) == 1
    assert review.overview(store, SessionFilter(owner="nobody")) == {"turns": [], "errors": [], "blocks": []}


def test_an_existing_database_is_upgraded_with_its_notes_and_verdicts(tmp_path) -> None:
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    from webapp.store.engine import MIGRATIONS

    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0001")  # a database from before reviewers had their product
        conn.exec_driver_sql(
            "INSERT INTO sessions VALUES ('s1', 'user:a', 'ui', 't', 'm', '2026-11-01 10:00:00', "
            "'2026-11-01 10:00:00', NULL, 1, '', 0)"
        )
        conn.exec_driver_sql(
            "INSERT INTO messages (id, session_id, seq, role, content, reasoning, status, created_at, updated_at) "
            "VALUES (1, 's1', 1, 'assistant', 'x', '', 'blocked', '2026-11-01 10:00:00', '2026-11-01 10:00:00')"
        )
        conn.exec_driver_sql(
            "INSERT INTO rail_events (message_id, stage, rail, decision, reason, latency_ms, created_at) "
            "VALUES (1, 'output', 'moderation', 'block', 'r', 1, '2026-11-01 10:00:00')"
        )
        conn.exec_driver_sql(
            "INSERT INTO annotations (message_id, author, text, created_at) VALUES (1, 'r', 'old note', "
            "'2026-11-01 10:00:00')"
        )
    engine.dispose()
    with Store(url) as store:
        assert ids(store, rail="moderation") == {"s1"}
        notes = review.session_annotations(store, "s1")
        assert [(n.message_id, n.text, n.label) for n in notes] == [(1, "old note", "")]
        assert store.purge_older_than(0) == 1  # and old rows still go with their session
