"""A chatter's own sessions: the owner check and the words a reopened chat shows, in one place."""

from __future__ import annotations

from webapp.turn.sessions import ChatSessions, ShownPart, length_note


def _chat(store, owner: str = "browser:alice") -> str:
    session = store.create_session(owner=owner, client="ui", model="m", title="t")
    store.add_message(session, role="user", content="hi")
    return session


def test_only_the_owner_opens_a_session_and_a_deleted_one_is_gone(store) -> None:
    sessions = ChatSessions(store)
    session = _chat(store)
    assert sessions.owned("browser:alice", session) is not None
    assert sessions.owned("browser:mallory", session) is None
    assert sessions.transcript("browser:mallory", session) is None
    assert not sessions.delete("browser:mallory", session)
    assert sessions.delete("browser:alice", session)
    assert sessions.owned("browser:alice", session) is None
    assert sessions.recent("browser:alice") == []


def test_a_blocked_answer_reopens_as_the_refusal_not_the_blocked_text(store) -> None:
    session = _chat(store)
    answer = store.add_message(session, role="assistant", content="", status="streaming")
    store.finish_message(
        answer, status="blocked", content="see https://evil.example/x", reasoning="", error="links to x"
    )
    parts = ChatSessions(store).transcript("browser:alice", session)
    assert parts == [
        ShownPart("user", "text", "hi"),
        ShownPart("assistant", "rail", "Sorry, I can't help with that: links to x."),
    ]


def test_an_answer_the_model_cut_at_its_length_limit_reopens_with_a_note_saying_so(store) -> None:
    session = _chat(store)
    cut = store.add_message(session, role="assistant", content="", status="streaming")
    store.finish_message(
        cut,
        status="complete",
        content="The three reasons are: fir",
        reasoning="",
        finish_reason="length",
        completion_tokens=1024,
    )
    parts = ChatSessions(store).transcript("browser:alice", session)
    assert parts is not None and parts[1:] == [
        ShownPart("assistant", "text", "The three reasons are: fir"),
        ShownPart("assistant", "info", length_note(1024)),
    ]
    assert "1,024 tokens" in length_note(1024)


def test_an_answer_that_ended_on_its_own_reopens_without_a_note(store) -> None:
    session = _chat(store)
    done = store.add_message(session, role="assistant", content="", status="streaming")
    store.finish_message(done, status="complete", content="Done.", reasoning="", finish_reason="stop")
    parts = ChatSessions(store).transcript("browser:alice", session)
    assert parts == [ShownPart("user", "text", "hi"), ShownPart("assistant", "text", "Done.")]
