"""Streaming answers are saved behind the stream, one write per interval for all of them; a final write always
wins over a checkpoint, and a crash between two writes leaves the answer interrupted with its text saved before."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from webapp.store import Store
from webapp.store.audit import verify_session
from webapp.store.records import ContextIn
from webapp.turn.checkpoints import Checkpoints


class FakeStore:
    def __init__(self) -> None:
        self.writes: list[list[tuple[int, str, str, str]]] = []

    def checkpoints(self, texts: list[tuple[int, str, str, str]]) -> None:
        self.writes.append(sorted(texts))


class Sleeps:
    """Records the delays the writer asks for and returns at once: no test waits for a real interval."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)


async def test_notes_do_not_wait_and_are_written_together_one_interval_later() -> None:
    store, sleeps = FakeStore(), Sleeps()
    saved = Checkpoints(store, 0.5, sleep=sleeps)  # type: ignore[arg-type]
    saved.note(1, "a", "")
    saved.note(2, "b", "r")
    saved.note(1, "a longer", "")
    assert store.writes == []  # noting only remembers
    await saved.drained()
    assert sleeps.asked == [0.5]  # the delay is bounded by the interval
    assert store.writes == [[(1, "a longer", "", ""), (2, "b", "r", "")]]  # one transaction, newest texts


async def test_the_writer_stops_when_nothing_is_left_and_starts_again_on_the_next_note() -> None:
    store, sleeps = FakeStore(), Sleeps()
    saved = Checkpoints(store, 0.5, sleep=sleeps)  # type: ignore[arg-type]
    saved.note(1, "a", "")
    await saved.drained()
    saved.note(1, "a b", "", "a")
    await saved.drained()
    assert store.writes == [[(1, "a", "", "")], [(1, "a b", "", "a")]]
    assert sleeps.asked == [0.5, 0.5]


async def test_a_forgotten_answer_is_not_written() -> None:
    store, sleeps = FakeStore(), Sleeps()
    saved = Checkpoints(store, 0.5, sleep=sleeps)  # type: ignore[arg-type]
    saved.note(1, "a", "")
    saved.note(2, "b", "")
    saved.forget(1)  # its final write is on its way
    await saved.drained()
    assert store.writes == [[(2, "b", "", "")]]


async def test_a_failed_write_does_not_stop_the_next_one() -> None:
    class Flaky(FakeStore):
        def checkpoints(self, texts: list[tuple[int, str, str, str]]) -> None:
            if not self.writes:
                self.writes.append([])
                raise OSError("disk full")
            super().checkpoints(texts)

    store, sleeps = Flaky(), Sleeps()
    saved = Checkpoints(store, 0.5, sleep=sleeps)  # type: ignore[arg-type]
    saved.note(1, "a", "")
    await saved.drained()
    saved.note(1, "a b", "")
    await saved.drained()
    assert store.writes == [[], [(1, "a b", "", "")]]


class OneInterval:
    """The first interval passes; the process dies before the second one does."""

    def __init__(self) -> None:
        self.calls = 0
        self.never = asyncio.Event()

    async def __call__(self, seconds: float) -> None:
        self.calls += 1
        if self.calls > 1:
            await self.never.wait()


def _answer(store: Store) -> tuple[str, int]:
    session_id = store.create_session(owner="u", client="api", model="m")
    user_id = store.add_message(session_id, role="user", content="hello")
    return session_id, store.add_answer(session_id, context=ContextIn((user_id,), 3, 0), model="m")


async def test_an_answer_cancelled_while_its_batch_is_being_written_keeps_its_final_text(
    tmp_path: Path,
) -> None:
    """The batch is taken, the answer is cancelled and stored final, then the batch lands: the final write wins."""
    store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
    session_id, answer_id = _answer(store)
    taken, land = threading.Event(), threading.Event()

    class Paused:
        def checkpoints(self, texts: list[tuple[int, str, str, str]]) -> None:
            taken.set()
            land.wait(30)
            store.checkpoints(texts)

    saved = Checkpoints(Paused(), 0.5, sleep=Sleeps())  # type: ignore[arg-type]
    saved.note(answer_id, "Once upon", "", "Once")
    writer = asyncio.ensure_future(saved.drained())
    await asyncio.to_thread(taken.wait, 30)  # the batch with "Once upon" is on its way
    saved.forget(answer_id)
    await asyncio.to_thread(
        store.finish_message,
        answer_id,
        status="interrupted",
        content="Once upon a",
        reasoning="",
        shown_content="Once",
    )
    land.set()
    await writer
    answer = store.messages(session_id)[-1]
    assert (answer.status, answer.content, answer.shown_content) == ("interrupted", "Once upon a", "Once")
    assert verify_session(store, session_id).ok


async def test_a_crash_between_two_writes_leaves_the_answer_interrupted_with_the_text_saved_before(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    store = Store(url)
    session_id, answer_id = _answer(store)
    saved = Checkpoints(store, 0.5, sleep=OneInterval())
    saved.note(answer_id, "Once upon", "", "Once upon")
    await saved.drained()
    saved.note(answer_id, "Once upon a time", "", "Once upon a")  # never written: the process dies first
    await asyncio.sleep(0)  # the writer is waiting for its interval
    store.close()

    restarted = Store(url)
    assert restarted.mark_interrupted() == 1
    answer = restarted.messages(session_id)[-1]
    assert (answer.status, answer.content, answer.shown_content) == ("interrupted", "Once upon", "Once upon")
    assert verify_session(restarted, session_id).ok
