"""The allocator is told to keep at most N heaps and to hand free pages back on a schedule, or left alone."""

from __future__ import annotations

import threading

from webapp.runtime.memory import M_ARENA_MAX, tune_allocator


class _Libc:
    def __init__(self) -> None:
        self.options: list[tuple[int, int]] = []
        self.trims = 0
        self.trimmed_twice = threading.Event()

    def mallopt(self, parameter: int, value: int) -> int:
        self.options.append((parameter, value))
        return 1

    def malloc_trim(self, pad: int) -> int:
        self.trims += 1
        if self.trims >= 2:
            self.trimmed_twice.set()
        return 1


def test_heaps_are_limited_and_free_pages_handed_back_again_and_again() -> None:
    libc = _Libc()
    thread = tune_allocator(arenas=2, trim_every_s=0.001, libc=libc)
    assert thread is not None and thread.daemon
    assert libc.options == [(M_ARENA_MAX, 2)]
    assert libc.trimmed_twice.wait(30)


def test_zero_leaves_the_allocator_alone() -> None:
    libc = _Libc()
    assert tune_allocator(arenas=0, trim_every_s=0, libc=libc) is None
    assert libc.options == [] and libc.trims == 0
