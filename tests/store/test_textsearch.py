"""The reviewers' text filter on SQLite (FTS5 trigram) and PostgreSQL (pg_trgm): the index follows every write,
an index lookup and a walk answer the same, and an existing database gets its text indexed on upgrade."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, text

from tests.support.review_data import seed
from webapp.store import Store, StoreError, review, textsearch
from webapp.store.engine import MIGRATIONS, normalize_url
from webapp.store.review import SessionFilter

QUERIES = [
    "sunny",
    "SUNNY",
    "hide a link",
    "picture",
    "evil.example/?q=",
    "100%",
    "an old",
    "o_d",
    "weather today",
    "I will",
    'say "hi"',
    "NEAR(a b)",
    "ünïcödé",
    "forget",
]


@pytest.fixture
def db(db_url: str) -> Iterator[Store]:
    store = Store(db_url)
    yield store
    store.close()


def ids(store: Store, q: str, **filters: object) -> set[str]:
    page = review.list_sessions(store, SessionFilter(q=q, **filters), limit=200)  # type: ignore[arg-type]
    return {s.id for s in page.sessions}


def walked(store: Store, q: str, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """The same query answered by the walk alone (the index names "too many")."""
    with monkeypatch.context() as patch:
        patch.setattr(textsearch, "MAX_CANDIDATES", -1)
        return ids(store, q)


def index_used(store: Store, q: str) -> bool:
    with store.transaction() as conn:
        return textsearch._candidates(conn, q) is not None


def test_what_each_query_finds(db: Store) -> None:
    s = seed(db)
    db.add_message(s.weather, role="user", content='She said "hi" and ünïcödé, 100% sure')
    assert ids(db, "sunny") == ids(db, "SUNNY") == {s.weather}  # answer text, any case
    assert ids(db, "HIDE A LINK") == {s.leak}  # reasoning of a blocked answer
    assert ids(db, "evil.example/?q=secret") == {s.leak}  # the blocked text reviewers must find
    assert ids(db, "picture") == {s.image}  # title
    assert ids(db, "forget") == {s.gone}  # deleted by its owner, still audited
    assert ids(db, 'said "hi"') == {s.weather}  # quotes are text, not query syntax
    assert ids(db, "ünïcödé") == {s.weather}
    assert ids(db, "100%") == {s.weather}
    assert ids(db, "100_") == set()  # LIKE wildcards are literal
    assert ids(db, "NEAR(a b)") == ids(db, "x* OR y") == set()  # FTS syntax is literal too
    assert ids(db, "ö") == {s.weather}  # under 3 characters: the walk
    assert ids(db, "sunny", owner="user:bob") == set()  # combines with the other filters
    assert index_used(db, "sunny")


def test_an_index_lookup_and_a_walk_answer_the_same(db: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    s = seed(db)
    db.add_message(s.demo, role="user", content="o_d and an old ünïcödé NEAR(a b)")
    for q in QUERIES:
        assert ids(db, q) == walked(db, q, monkeypatch), q


def test_a_common_word_walks_and_still_finds_everything(db: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    s = seed(db)
    monkeypatch.setattr(textsearch, "MAX_CANDIDATES", 1)
    assert not index_used(db, "the")  # "the" is in more than one message
    assert ids(db, "the") == {s.weather, s.leak}
    assert index_used(db, "logo")  # in one message only


def test_the_index_follows_an_answer_from_streaming_to_final(db: Store) -> None:
    session = db.create_session(owner="user:a", client="ui", model="m")
    answer = db.add_message(session, role="assistant", content="", status="streaming")
    db.checkpoints([(answer, "draft about zebras", "pondering", "")])
    assert ids(db, "zebras") == {session}  # streaming text is searchable before it is final
    assert ids(db, "pondering") == {session}
    db.finish_message(answer, status="blocked", content="final words about giraffes", reasoning="mulling")
    assert ids(db, "giraffes") == ids(db, "mulling") == {session}
    assert ids(db, "zebras") == ids(db, "pondering") == set()  # the draft left the index with its text
    assert index_used(db, "giraffes")


def test_the_index_follows_titles_and_deletes(db: Store) -> None:
    kept = db.create_session(owner="user:a", client="ui", model="m", title="Weather")
    other = db.create_session(owner="user:a", client="ui", model="m")
    db.add_message(other, role="user", content="sailing boats")
    db.set_title(kept, "Weather in Paris")  # the new title contains the old one
    assert ids(db, "weather") == ids(db, "in paris") == {kept}
    db.set_title(kept, "Lunch")
    assert ids(db, "weather") == set()
    assert ids(db, "lunch") == {kept}
    db.set_title(kept, None)
    assert ids(db, "lunch") == set()
    db.set_title(kept, "Dinner")
    assert ids(db, "dinner") == {kept}
    assert db.purge_older_than(0) == 2
    assert ids(db, "dinner") == ids(db, "sailing") == set()
    again = db.create_session(owner="user:a", client="ui", model="m", title="Dinner")
    db.add_message(again, role="user", content="sailing boats")
    assert ids(db, "dinner") == ids(db, "sailing") == {again}


def test_interrupted_answers_enter_the_index(db: Store) -> None:
    session = db.create_session(owner="user:a", client="ui", model="m")
    answer = db.add_message(session, role="assistant", content="", status="streaming")
    db.checkpoints([(answer, "half a sentence about otters", "", "")])
    assert db.mark_interrupted() == 1
    assert ids(db, "otters") == {session}
    assert index_used(db, "otters")


def test_nul_in_the_search_text_is_refused(db: Store) -> None:
    with pytest.raises(StoreError, match="NUL"):
        ids(db, "a\x00b")


def test_sqlite_index_holds_exactly_the_final_messages(store: Store) -> None:
    """The external-content index must hold what the triggers put there, no more and no less."""
    s = seed(store)
    streaming = store.add_message(s.weather, role="assistant", content="", status="streaming")
    store.checkpoints([(streaming, "live words", "", "")])
    with store.transaction() as conn:
        for q in ("sunny", "old", "link", "live words", "the"):
            phrase = f'"{q}"'
            indexed = set(
                conn.execute(
                    text("SELECT rowid FROM messages_fts WHERE messages_fts MATCH :p"), {"p": phrase}
                ).scalars()
            )
            pattern = textsearch.like_pattern(q)
            expected = set(
                conn.execute(
                    text(
                        "SELECT id FROM messages WHERE status != 'streaming' AND "
                        "(lower(content) LIKE :p ESCAPE '\\' OR lower(reasoning) LIKE :p ESCAPE '\\')"
                    ),
                    {"p": pattern},
                ).scalars()
            )
            assert indexed == expected, q


def _database_at(url: str, revision: str) -> None:
    engine = create_engine(normalize_url(url))
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, revision)
    engine.dispose()


def test_an_existing_database_gets_its_text_indexed(db_url: str) -> None:
    _database_at(db_url, "0003")  # before the text index
    engine = create_engine(normalize_url(db_url))
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO sessions VALUES ('s1', 'user:a', 'ui', 'Old title', 'm', '2026-11-01 10:00:00', "
                "'2026-11-01 10:00:00', NULL, 2, '', 0)"
            )
        )
        conn.execute(
            text(
                "INSERT INTO messages (session_id, seq, role, content, reasoning, status, created_at, "
                "updated_at) VALUES ('s1', 1, 'user', 'an archived question', '', 'complete', "
                "'2026-11-01 10:00:00', '2026-11-01 10:00:00'), ('s1', 2, 'assistant', 'cut short', "
                "'', 'streaming', '2026-11-01 10:00:00', '2026-11-01 10:00:00')"
            )
        )
    engine.dispose()
    with Store(db_url) as store:
        assert ids(store, "archived question") == ids(store, "old title") == ids(store, "cut short") == {"s1"}
        assert index_used(store, "archived question")
        session = store.create_session(owner="user:b", client="ui", model="m")
        store.add_message(session, role="user", content="a newer question")
        assert ids(store, "question") == {"s1", session}
