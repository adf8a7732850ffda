"""Moderation's case-insensitive patterns run without ``re.IGNORECASE`` where that changes nothing.

The rules run on normalised text, which is lower case and almost always plain ASCII. Python's ``re`` is
~3x slower on such text with ``IGNORECASE`` than without: an alternative that starts with a case-sensitive
literal is skipped at its first character, but with ``IGNORECASE`` every one of a word list's hundreds of
alternatives is entered at every word. A streamed answer has its growing sentence judged again at every
check, so the category rules and the context rules (negation, counter-speech) were most of moderation's CPU.

The same pattern without the flag finds exactly the same matches in a text when both hold:

- the text is ASCII without a capital letter (anything else, say "Café" or a Kelvin sign, takes the
  original pattern), and
- the pattern spells no capital letter, no character by number or name (``\\x41`` is "A"), no range
  other than lower-case letters or digits (``[!-_]`` holds the capitals: with the flag it matches "a"), and
  no non-ASCII character that matches an ASCII letter when case is ignored (the Kelvin sign matches "k").

Then every literal and class matches a lower-case ASCII character with the flag exactly when it does
without. A pattern that fails the check keeps the flag for every text.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from dataclasses import dataclass

_CAPITAL = re.compile("[A-Z]")
_BY_NUMBER = frozenset("xuUN0123456789")  # escapes that spell a character by its code or name (or a group)


@dataclass(frozen=True)
class CaselessPattern:
    """A pattern compiled with ``IGNORECASE`` and, where the module docstring allows it, without."""

    original: re.Pattern[str]
    lower: re.Pattern[str]  # the same pattern without IGNORECASE, or ``original`` where that could differ

    @classmethod
    def of(cls, pattern: re.Pattern[str]) -> CaselessPattern:
        if not pattern.flags & re.IGNORECASE or not spells_only_lower_case(pattern.pattern):
            return cls(pattern, pattern)
        return cls(pattern, re.compile(pattern.pattern, pattern.flags & ~re.IGNORECASE))

    @property
    def pattern(self) -> str:
        return self.original.pattern

    def for_text(self, text: str) -> re.Pattern[str]:
        return self.lower if is_lower_ascii(text) else self.original

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.for_text(text).finditer(text)

    def search(self, text: str) -> re.Match[str] | None:
        return self.for_text(text).search(text)

    def sub(self, replacement: str, text: str) -> str:
        return self.for_text(text).sub(replacement, text)


def is_lower_ascii(text: str) -> bool:
    return text.isascii() and _CAPITAL.search(text) is None


def spells_only_lower_case(source: str) -> bool:
    """Whether ``source`` passes the module docstring's check (conservatively: a doubt says no)."""
    in_class, previous, i = False, "", 0
    while i < len(source):
        char = source[i]
        if char == "\\":
            escaped = source[i + 1 : i + 2]
            if escaped in _BY_NUMBER:
                return False
            # \w, \S, \b...: classes and anchors that case does not change; \. \- \[...: the character itself
            previous = "" if escaped.isalpha() else escaped
            i += 2
            continue
        if _case_matters(char):
            return False
        if in_class and char == "-" and previous and source[i + 1 : i + 2] not in ("", "]"):
            escaped_end = source[i + 1] == "\\"
            end, i = (source[i + 2 : i + 3], i + 3) if escaped_end else (source[i + 1], i + 2)
            if (escaped_end and (end in _BY_NUMBER or end.isalpha())) or not _plain_range(previous, end):
                return False
            previous = ""
            continue
        if char == "[" and not in_class:
            in_class, previous = True, ""
            i += 1
            i += source[i : i + 1] == "^"
            if source[i : i + 1] == "]":  # "[]...]" and "[^]...]" start with a literal "]"
                previous, i = "]", i + 1
            continue
        if char == "]" and in_class:
            in_class = False
        previous = char
        i += 1
    return True


def _case_matters(char: str) -> bool:
    if char.isascii():
        return char.isupper()
    return any(re.fullmatch(re.escape(char), letter, re.IGNORECASE) for letter in string.ascii_letters)


def _plain_range(start: str, end: str) -> bool:
    return (start.islower() and end.islower() and start.isascii() and end.isascii()) or (
        start.isdigit() and end.isdigit() and start.isascii() and end.isascii()
    )
