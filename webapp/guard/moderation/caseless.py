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
without. A pattern that fails the check keeps the flag for every text. A group's name (``(?P<name>``) is
syntax, not text to match.

A long pattern (a word list of hundreds of alternatives) also gets gates for such text: small regexes, each
of one set of literals every match needs (``literals.py``), searched first; a text without one cannot match.
The context rules (condemnation, endorsement, agreement, the sequels) ran over every growing sentence of a
streamed answer at 60-230 us each; their gates cost a few.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from dataclasses import dataclass

from webapp.guard.moderation.alternation import Alternation
from webapp.guard.moderation.gates import gates_of
from webapp.guard.moderation.literals import Strings, tree_sets
from webapp.guard.moderation.regextree import compile_tree, parse

_CAPITAL = re.compile("[A-Z]")
_BY_NUMBER = frozenset("xuUN0123456789")  # escapes that spell a character by its code or name (or a group)
_GROUP_NAME = re.compile(r"\(\?P<\w+>")
GATED_LENGTH = 200  # a pattern this long gets gates (a short one costs about what a gate does)


@dataclass(frozen=True)
class CaselessPattern:
    """A pattern compiled with ``IGNORECASE`` and, where the module docstring allows it, without."""

    original: re.Pattern[str]
    lower: re.Pattern[str]  # the same pattern without IGNORECASE, or ``original`` where that could differ
    # on lower-case ASCII text, a match needs each gate to find something (none: always run)
    gates: tuple[re.Pattern[str], ...] = ()
    # on lower-case ASCII text, a match holds a string of each set (``literals.required_sets`` of ``lower``)
    sets: tuple[Strings, ...] = ()
    # a long gated list: searched in the alternatives a text holds the words of (``alternation.py``)
    alternation: Alternation | None = None

    @classmethod
    def compile(cls, source: str, flags: int = re.IGNORECASE, *, gated: bool = False) -> CaselessPattern:
        """``source`` parsed once for both compilations and its literals (``regextree.py``). ``gated``: give
        a long pattern gates (the category rules need none: they ask ``literals.Probe`` about ``sets``)."""
        if not flags & re.IGNORECASE or not spells_only_lower_case(source):
            pattern = re.compile(source, flags)
            return cls(pattern, pattern)
        tree = parse(source, flags & ~re.IGNORECASE)
        sets = tree_sets(tree)
        lower = compile_tree(source, tree, flags & ~re.IGNORECASE)
        if not gated or len(source) < GATED_LENGTH:
            return cls(compile_tree(source, tree, flags), lower, (), sets)
        alternation = Alternation.of(source, tree, flags & ~re.IGNORECASE)
        return cls(compile_tree(source, tree, flags), lower, gates_of(sets), sets, alternation)

    @classmethod
    def of(cls, pattern: re.Pattern[str], *, gated: bool = False) -> CaselessPattern:
        """The same for a compiled pattern (compiled again)."""
        return cls.compile(pattern.pattern, pattern.flags, gated=gated)

    @property
    def pattern(self) -> str:
        return self.original.pattern

    def for_text(self, text: str) -> re.Pattern[str]:
        return self.lower if is_lower_ascii(text) else self.original

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        if not is_lower_ascii(text):
            return self.original.finditer(text)
        return self.lower.finditer(text) if self._may_match(text) else iter(())

    def search(self, text: str) -> re.Match[str] | None:
        if not is_lower_ascii(text):
            return self.original.search(text)
        if not self._may_match(text):
            return None
        if self.alternation is None:
            return self.lower.search(text)
        start = self.alternation.leftmost(text)
        return None if start is None else self.lower.match(text, start)

    def sub(self, replacement: str, text: str) -> str:
        if not is_lower_ascii(text):
            return self.original.sub(replacement, text)
        return self.lower.sub(replacement, text) if self._may_match(text) else text

    def _may_match(self, text: str) -> bool:
        """On lower-case ASCII text: False only where some gate finds nothing, so no match is possible."""
        return all(gate.search(text) for gate in self.gates)


def is_lower_ascii(text: str) -> bool:
    return text.isascii() and _CAPITAL.search(text) is None


def spells_only_lower_case(source: str) -> bool:
    """Whether ``source`` passes the module docstring's check (conservatively: a doubt says no)."""
    in_class, previous, i = False, "", 0
    while i < len(source):
        char = source[i]
        named = None if in_class else _GROUP_NAME.match(source, i)
        if named is not None:
            previous, i = "", named.end()
            continue
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
