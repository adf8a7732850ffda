"""Homonyms of slurs read in their other sense (webapp/guard/moderation/senses.py): a unit holding none of
their words is read with one search, not one per homonym, and reads as before."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from webapp.guard.moderation.senses import Sense, Senses


class CountedPattern:
    """A homonym's word that counts its searches."""

    def __init__(self, pattern: str) -> None:
        self.compiled = re.compile(pattern)
        self.pattern = pattern
        self.searches = 0

    def search(self, text: str) -> re.Match[str] | None:
        self.searches += 1
        return self.compiled.search(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text)

    def sub(self, repl: Callable[[re.Match[str]], str], text: str) -> str:
        return self.compiled.sub(repl, text)


def _senses() -> tuple[Senses, list[CountedPattern]]:
    words = [CountedPattern(r"\b(?:fags?)\b"), CountedPattern(r"\b(?:dykes?)\b")]
    homonyms = (
        Sense(words[0], "cigarette", re.compile(r"\bsmok\w*")),  # type: ignore[arg-type]
        Sense(words[1], "dam", re.compile(r"\b(?:flood\w*|river)\b")),  # type: ignore[arg-type]
    )
    return Senses(homonyms=homonyms, hostile=re.compile(r"\bshot\b")), words


def test_a_unit_without_any_homonym_is_read_with_one_search() -> None:
    senses, words = _senses()
    assert senses.read("the river market opens at nine") == "the river market opens at nine"
    assert [w.searches for w in words] == [0, 0]


def test_a_unit_with_a_homonym_still_reads_it_in_its_sense() -> None:
    senses, words = _senses()
    assert senses.read("he was smoking a fag by the river") == "he was smoking a cigarette by the river"
    assert senses.read("the dyke held back the flood") == "the dam held back the flood"
    assert senses.read("that fag smoking outside should be shot") == "that fag smoking outside should be shot"
    assert all(w.searches > 0 for w in words)
