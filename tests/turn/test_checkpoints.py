"""Streaming answers are saved together, one write per interval for all of them."""

from __future__ import annotations

from webapp.turn.checkpoints import Checkpoints


class FakeStore:
    def __init__(self) -> None:
        self.writes: list[list[tuple[int, str, str, str]]] = []

    def checkpoints(self, texts: list[tuple[int, str, str, str]]) -> None:
        self.writes.append(sorted(texts))


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_every_noted_answer_is_written_in_one_batch_per_interval() -> None:
    store, clock = FakeStore(), Clock()
    saved = Checkpoints(store, 0.5, clock=clock)  # type: ignore[arg-type]
    await saved.note(1, "a", "")
    await saved.note(2, "b", "r")
    await saved.note(1, "a longer", "")
    assert store.writes == []  # the interval has not passed
    clock.now += 0.5
    await saved.note(3, "c", "")
    assert store.writes == [[(1, "a longer", "", ""), (2, "b", "r", ""), (3, "c", "", "")]]
    await saved.note(2, "b more", "r")
    clock.now += 0.2
    await saved.note(1, "x", "")
    assert len(store.writes) == 1  # next batch waits for the next interval


async def test_a_forgotten_answer_is_not_written() -> None:
    store, clock = FakeStore(), Clock()
    saved = Checkpoints(store, 0.5, clock=clock)  # type: ignore[arg-type]
    await saved.note(1, "a", "")
    saved.forget(1)
    clock.now += 1
    await saved.note(2, "b", "")
    assert store.writes == [[(2, "b", "", "")]]
