"""Hash-chain verification: every kind of after-the-fact edit is found, and the CLI reports it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, update

from tests.support.paths import ROOT
from webapp.audit import main
from webapp.store import AttachmentIn, Store
from webapp.store.audit import verify_session
from webapp.store.models import BLOBS, MESSAGES, SESSIONS


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'audit.db'}"


@pytest.fixture
def db(url: str) -> Iterator[Store]:
    store = Store(url)
    yield store
    store.close()


def conversation(db: Store, turns: int = 3) -> str:
    session_id = db.create_session(owner="alice", client="ui", model="m")
    pic = AttachmentIn(
        sha256="0" * 64, mime="image/png", size=3, width=1, height=1, data=b"png", thumbnail=None
    )
    for n in range(turns):
        db.add_message(session_id, role="user", content=f"question {n}", attachments=[pic] if n == 0 else [])
        answer = db.add_message(session_id, role="assistant", content="", status="streaming")
        db.finish_message(answer, status="complete", content=f"answer {n}", reasoning=f"thought {n}")
    return session_id


def tamper(db: Store, statement) -> None:
    with db.engine.begin() as conn:
        conn.execute(statement)


def test_untouched_session_verifies(db: Store) -> None:
    result = verify_session(db, conversation(db))
    assert (result.ok, result.first_broken_seq, result.reason) == (True, None, "")
    assert not verify_session(db, "no-such-session").ok


@pytest.mark.parametrize(
    ("column", "value"),
    [("content", "edited answer"), ("reasoning", "edited thought"), ("status", "blocked")],
)
def test_an_edited_field_breaks_the_chain_at_that_message(db: Store, column: str, value: str) -> None:
    session_id = conversation(db)
    tamper(
        db,
        update(MESSAGES)
        .where(MESSAGES.c.session_id == session_id, MESSAGES.c.seq == 4)
        .values({column: value}),
    )
    result = verify_session(db, session_id)
    assert (result.ok, result.first_broken_seq) == (False, 4)
    assert "changed" in result.reason


def test_swapped_image_bytes_are_detected(db: Store) -> None:
    session_id = conversation(db)
    tamper(db, update(BLOBS).values(data=b"other picture"))
    result = verify_session(db, session_id)
    assert (result.ok, result.first_broken_seq) == (False, 1)


def test_a_removed_message_is_detected(db: Store) -> None:
    session_id = conversation(db)
    tamper(db, delete(MESSAGES).where(MESSAGES.c.session_id == session_id, MESSAGES.c.seq == 3))
    result = verify_session(db, session_id)
    assert (result.ok, result.first_broken_seq) == (False, 3)


def test_a_removed_last_answer_is_detected(db: Store) -> None:
    session_id = conversation(db)
    tamper(db, delete(MESSAGES).where(MESSAGES.c.session_id == session_id, MESSAGES.c.seq == 6))
    result = verify_session(db, session_id)
    assert not result.ok and "removed" in result.reason


def test_a_rewritten_chain_without_the_session_head_is_detected(db: Store) -> None:
    session_id = conversation(db, turns=1)
    tamper(db, update(SESSIONS).where(SESSIONS.c.id == session_id).values(chain_head="f" * 64))
    assert not verify_session(db, session_id).ok


def test_cli_exit_codes_and_report(db: Store, url: str, capsys: pytest.CaptureFixture[str]) -> None:
    good, bad = conversation(db), conversation(db)
    assert main(["verify", "--db", url]) == 0
    tamper(db, update(MESSAGES).where(MESSAGES.c.session_id == bad, MESSAGES.c.seq == 2).values(content="x"))
    assert main(["verify", "--db", url, "--session", good]) == 0
    assert main(["verify", "--db", url]) == 1
    out = capsys.readouterr().out
    assert f"{bad}: BROKEN, first broken at seq 2" in out
    assert "2 session(s) checked, 1 broken" in out


def test_cli_runs_as_a_module(db: Store, url: str) -> None:
    session_id = conversation(db, turns=1)
    tamper(db, update(MESSAGES).where(MESSAGES.c.seq == 1).values(content="forged"))
    command = [sys.executable, "-m", "webapp.audit", "verify", "--db", url, "--session", session_id]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "first broken at seq 1" in done.stdout


def test_cli_defaults_to_the_configured_database(db: Store, url: str) -> None:
    conversation(db, turns=1)
    done = subprocess.run(
        [sys.executable, "-m", "webapp.audit", "verify"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "RAILCHAT_DB": url},
    )
    assert done.returncode == 0, done.stderr
    assert "1 session(s) checked, 0 broken" in done.stdout


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('chain') / 'chain.db'}")
    yield store
    store.close()


operation = st.tuples(st.sampled_from(["ask", "start", "checkpoint", "finish"]), st.integers(0, 5))


@settings(max_examples=60, deadline=None)
@given(operations=st.lists(operation, max_size=25), victim=st.integers(0, 1000))
def test_any_interleaving_verifies_and_any_edit_is_found(
    shared_store: Store, operations: list[tuple[str, int]], victim: int
) -> None:
    db = shared_store
    session_id = db.create_session(owner="p", client="api", model="m")
    streaming: list[int] = []
    for kind, n in operations:
        if kind == "ask":
            db.add_message(session_id, role="user", content=f"question {n}")
        elif kind == "start":
            streaming.append(db.add_message(session_id, role="assistant", content="", status="streaming"))
        elif streaming and kind == "checkpoint":
            db.checkpoint(streaming[n % len(streaming)], content=f"partial {n}", reasoning="r")
        elif streaming:
            answer = streaming.pop(n % len(streaming))
            db.finish_message(
                answer,
                status=("complete", "blocked", "error")[n % 3],
                content=f"final {n}",
                reasoning=f"why {n}",
            )
    assert verify_session(db, session_id).ok  # streams still open are simply not linked yet
    db.mark_interrupted()
    assert verify_session(db, session_id).ok
    messages = db.messages(session_id)
    if not messages:
        return
    target = messages[victim % len(messages)]
    tamper(db, update(MESSAGES).where(MESSAGES.c.id == target.id).values(content=target.content + "!"))
    result = verify_session(db, session_id)
    assert (result.ok, result.first_broken_seq) == (False, target.seq)


def test_cli_export_then_import_into_another_database(
    db: Store, url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session_id = conversation(db)
    assert main(["export", "--db", url, "--session", session_id]) == 0
    exported = capsys.readouterr().out
    dump = tmp_path / "session.jsonl"
    dump.write_text(exported)
    other = f"sqlite:///{tmp_path / 'other.db'}"
    assert main(["import", str(dump), "--db", other]) == 0
    imported_id = capsys.readouterr().out.strip()
    copy = Store(other)
    assert [m.content for m in copy.messages(imported_id)] == [m.content for m in db.messages(session_id)]
    assert verify_session(copy, imported_id).ok
    dump.write_text(exported.replace('"content": "', '"content": "forged ', 1))
    assert main(["import", str(dump), "--db", f"sqlite:///{tmp_path / 'third.db'}"]) == 1
    assert "import refused" in capsys.readouterr().err
