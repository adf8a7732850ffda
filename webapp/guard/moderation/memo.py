"""The moderator's memories (a verdict per unit, a vector and a score per sentence): bounded, and visible.

Each is a least-recently-used map bounded by entries *and* by an estimate of the bytes it holds, since a
unit can be a word or a 1,200-character run-on sentence. Every instance registers itself so the app can
publish what they hold (``railchat_moderation_cache_*`` at ``/metrics``): with new text every turn the
caches fill over thousands of turns, and resident memory should stop growing when they are full.

Thread-safe: streamed checks run on the event loop and in the rails' worker thread.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from webapp.guard.moderation.text import Unit

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

ENTRY_OVERHEAD = 120  # bytes an OrderedDict entry costs beyond its key and value (node, hash slot)

_all: weakref.WeakSet[Memo[object, object]] = weakref.WeakSet()


@dataclass(frozen=True)
class MemoSize:
    name: str
    entries: int
    max_entries: int
    bytes: int
    max_bytes: int


def text_bytes(*texts: str) -> int:
    return sum(sys.getsizeof(t) for t in texts)


def verdict_bytes(key: tuple[str, Unit], _finding: object) -> int:
    """A remembered rule verdict: its unit's texts (and the sentence a clause is part of)."""
    unit: Unit | None = key[1]
    size = 0
    while unit is not None:
        size += text_bytes(unit.text, unit.outside_quotes, unit.as_written, unit.around, *unit.quotes) + 100
        unit = unit.within
    return size


def without_around(unit: Unit) -> Unit:
    """The unit as the key of a verdict that does not read the sentences around it: a streamed answer's
    sentence is judged again at each check with more of the next sentence around it, and would never be
    found under its full key."""
    if not unit.around and unit.within is None:
        return unit
    within = without_around(unit.within) if unit.within is not None else None
    return dataclasses.replace(unit, around="", within=within)


class Memo(Generic[K, V]):
    def __init__(
        self, name: str, *, max_entries: int, max_bytes: int, size_of: Callable[[K, V], int]
    ) -> None:
        self.name = name
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._size_of = size_of
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        _all.add(self)  # type: ignore[arg-type]

    def get(self, key: K) -> tuple[bool, V | None]:
        """(found, value); a hit becomes the most recently used."""
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return False, None
            self._items.move_to_end(key)
            return True, item[0]

    def __contains__(self, key: K) -> bool:
        with self._lock:
            return key in self._items

    def put(self, key: K, value: V) -> None:
        size = self._size_of(key, value) + ENTRY_OVERHEAD
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._items[key] = (value, size)
            self._bytes += size
            while self._items and (len(self._items) > self.max_entries or self._bytes > self.max_bytes):
                self._bytes -= self._items.popitem(last=False)[1][1]

    def __len__(self) -> int:
        return len(self._items)

    def size(self) -> MemoSize:
        with self._lock:
            return MemoSize(self.name, len(self._items), self.max_entries, self._bytes, self.max_bytes)


def memo_sizes() -> Iterator[MemoSize]:
    """What every live memo holds now (for metrics)."""
    for memo in list(_all):
        yield memo.size()
