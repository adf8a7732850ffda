"""The words a pattern cannot match without: a rule is tried only on text that holds one of them.

A streamed answer has its growing last sentence judged again at every check, and the category rules are
~190 regular expressions run over it each time, most of them with word lists of hundreds of alternatives
that Python's ``re`` enters at every position. Almost every sentence lacks every word some rule needs, and
``substring in text`` is a C loop: asking that first skips the regex for the rules that cannot match.

The analysis reads the compiled pattern's parse tree (``re._parser``, the standard library's own parser)
and derives, for each pattern, sets of literal strings such that every match contains at least one string of
each set (a pattern it cannot reason about, e.g. one built only of classes, gets no set and always runs).
It is exact in one direction only, which is the one that matters: if no string of a set occurs in the
text, no match can occur, so skipping the regex changes no verdict. It applies only where the pattern runs
without ``IGNORECASE`` on lower-case ASCII text (``caseless.py``): literals then compare byte for byte.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

# The standard library's own parser (Python 3.11+; private, so typed loosely: its node shapes are data)
_sre: Any = importlib.import_module("re._constants")
_sre_parse: Any = importlib.import_module("re._parser")

# Most strings a piece may stand for before it is treated as "some text" (cross products grow fast).
MAX_STRINGS = 256
# Classes of at most this many characters are expanded into their characters ("colou?r", "[sz]e").
MAX_CLASS = 4
# Sets kept per pattern (each a further necessary condition; the smallest is asked first).
MAX_SETS = 3

Strings = frozenset[str]


class _Piece:
    """What part of a pattern may match: every string of ``exact`` (when known), and ``needs``: sets of
    which a match must contain a string of each."""

    __slots__ = ("exact", "needs")

    def __init__(self, exact: Strings | None, needs: tuple[Strings, ...] = ()) -> None:
        self.exact = exact
        self.needs = needs


_EMPTY = _Piece(frozenset({""}))
_UNKNOWN = _Piece(None)


class Needs:
    """One set of literals a pattern needs, indexed for asking a text about it quickly."""

    __slots__ = ("strings", "_short", "_by_trigram")

    def __init__(self, strings: Strings) -> None:
        self.strings = strings
        self._short = tuple(s for s in strings if len(s) < 3)
        by_trigram: dict[str, list[str]] = {}
        for s in strings:
            if len(s) >= 3:
                by_trigram.setdefault(s[:3], []).append(s)
        self._by_trigram = {k: tuple(v) for k, v in by_trigram.items()}

    def found_in(self, probe: Probe) -> bool:
        text = probe.text
        if any(s in text for s in self._short):
            return True
        if len(self._by_trigram) <= 4:
            return any(s in text for bucket in self._by_trigram.values() for s in bucket)
        present = probe.trigrams()
        return any(s in text for key in present.intersection(self._by_trigram) for s in self._by_trigram[key])


class Probe:
    """One text's answers to "does it hold one of these strings?", each set asked once per text."""

    __slots__ = ("text", "_trigrams", "_known")

    def __init__(self, text: str) -> None:
        self.text = text
        self._trigrams: frozenset[str] | None = None
        self._known: dict[int, bool] = {}

    def trigrams(self) -> frozenset[str]:
        if self._trigrams is None:
            text = self.text
            self._trigrams = frozenset(text[i : i + 3] for i in range(len(text) - 2))
        return self._trigrams

    def may_match(self, needs: tuple[Needs, ...]) -> bool:
        """False only when some set has no string in the text: then the pattern cannot match it."""
        for need in needs:
            known = self._known.get(id(need))
            if known is None:
                known = self._known[id(need)] = need.found_in(self)
            if not known:
                return False
        return True


_INTERNED: dict[Strings, Needs] = {}  # one Needs per distinct set: patterns sharing a word list share it


def pattern_needs(pattern: re.Pattern[str]) -> tuple[Needs, ...]:
    """What every match of ``pattern`` holds (see the module docstring); empty: nothing is known."""
    return tuple(_INTERNED.setdefault(s, Needs(s)) for s in required_sets(pattern))


def required_sets(pattern: re.Pattern[str]) -> tuple[Strings, ...]:
    """Sets of literals: every match of ``pattern`` holds a string of each (empty: nothing is known).

    Only for a pattern compiled without ``IGNORECASE``: its literals are then the characters it matches.
    """
    if pattern.flags & re.IGNORECASE:
        return ()
    try:
        tree = _sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:  # a pattern re compiled always parses; doubt means no filter
        return ()
    piece = _sequence(list(tree))
    needs = list(piece.needs)
    if piece.exact is not None:
        needs.append(piece.exact)
    useful = {_shortest(s) for s in needs if s and "" not in s}
    return tuple(sorted(useful, key=lambda s: (len(s), -min(len(x) for x in s)))[:MAX_SETS])


def _shortest(strings: Strings) -> Strings:
    """The set without a string that holds another of it (if the longer occurs, so does the shorter)."""
    if len(strings) > MAX_STRINGS:
        return strings
    ordered = sorted(strings, key=len)
    kept: list[str] = []
    for s in ordered:
        if not any(k in s for k in kept):
            kept.append(s)
    return frozenset(kept)


def _sequence(items: list[tuple[Any, Any]]) -> _Piece:
    """Concatenation: runs of exactly known pieces multiply out; an unknown piece ends a run, and each run
    that holds no empty string is a set the match needs."""
    run: Strings = frozenset({""})
    needs: list[Strings] = []
    whole = True  # every piece known and the product small: the sequence is exactly known
    for op, arg in items:
        piece = _node(op, arg)
        needs += piece.needs
        if piece.exact is not None and len(run) * len(piece.exact) <= MAX_STRINGS:
            run = frozenset(a + b for a in run for b in piece.exact)
            continue
        whole = False
        if "" not in run:
            needs.append(run)
        run = piece.exact if piece.exact is not None else frozenset({""})
    if whole:
        return _Piece(run, tuple(needs))
    if "" not in run:
        needs.append(run)
    return _Piece(None, tuple(needs))


def _node(op: Any, arg: Any) -> _Piece:
    if op is _sre.LITERAL:
        return _Piece(frozenset({chr(arg)}))
    if op is _sre.IN:
        chars = _class_chars(arg)
        return _Piece(chars) if chars is not None else _UNKNOWN
    if op is _sre.SUBPATTERN:
        if arg[1] & re.IGNORECASE:
            return _UNKNOWN  # a scoped (?i:...): its literals match other cases too
        return _sequence(list(arg[-1]))
    if op is _sre.BRANCH:
        return _branch([_sequence(list(b)) for b in arg[1]])
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, getattr(_sre, "POSSESSIVE_REPEAT", None)):
        low, high, sub = arg
        inner = _sequence(list(sub))
        if low == 0:
            if high == 1 and inner.exact is not None:
                return _Piece(inner.exact | {""})
            return _UNKNOWN  # any number of times: unknown text, needed or not
        if low == high == 1:
            return inner
        # at least once: what one repetition needs, a match needs
        return _Piece(None, inner.needs + ((inner.exact,) if inner.exact and "" not in inner.exact else ()))
    if op is getattr(_sre, "ATOMIC_GROUP", None):
        return _sequence(list(arg))
    if op in (_sre.AT, _sre.ASSERT, _sre.ASSERT_NOT):
        return _EMPTY  # zero width: the match itself holds nothing of it
    return _UNKNOWN  # ANY, NOT_LITERAL, GROUPREF, GROUPREF_EXISTS, CATEGORY...


def _branch(alternatives: list[_Piece]) -> _Piece:
    """Alternatives: exactly known if each is; else a match needs a string of the union of one set of each."""
    if all(a.exact is not None for a in alternatives):
        union = frozenset[str]().union(*(a.exact or () for a in alternatives))
        if len(union) <= MAX_STRINGS:
            return _Piece(union)
    choices = []
    for alternative in alternatives:
        options = list(alternative.needs)
        if alternative.exact is not None and "" not in alternative.exact:
            options.append(alternative.exact)
        if not options:
            return _UNKNOWN  # this alternative needs nothing, so the branch needs nothing
        choices.append(min(options, key=len))
    return _Piece(None, (frozenset[str]().union(*choices),))


def _class_chars(items: list[tuple[Any, Any]]) -> Strings | None:
    chars: set[str] = set()
    for op, arg in items:
        if op is _sre.LITERAL:
            chars.add(chr(arg))
        elif op is _sre.RANGE and arg[1] - arg[0] < MAX_CLASS:
            chars.update(chr(c) for c in range(arg[0], arg[1] + 1))
        else:
            return None  # NEGATE, CATEGORY (\w, \s), wide ranges
        if len(chars) > MAX_CLASS:
            return None
    return frozenset(chars)
