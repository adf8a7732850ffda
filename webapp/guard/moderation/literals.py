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

A text is asked about every set at once (``Scanner``): one pass of an Aho-Corasick automaton over every
literal of every set (pyahocorasick, in C) finds every literal the text holds. Asking set by set in Python cost
more than the regexes it saved (~0.4 ms per unit; the rules were 40% of the output filter's CPU on ordinary
prose), and it kept only the three smallest sets of a pattern, often the weakest ("a", "the", "is"): with every
set answered by the one pass, a pattern keeps them all, and one that needs a group's name is not run on a text
that names none. The pass was first a regex shaped as a trie of the literals, run at every position: ~30 us
per sentence, a fifth of a streamed answer's moderation under load; the automaton reads each character once
(~14 us, most of it the union of the sets found).
"""

from __future__ import annotations

import importlib
import re
import threading
from typing import Any

import ahocorasick

# The standard library's own parser (Python 3.11+; private, so typed loosely: its node shapes are data)
_sre: Any = importlib.import_module("re._constants")
_sre_parse: Any = importlib.import_module("re._parser")

# Most strings a piece may stand for before it is treated as "some text" (cross products grow fast).
MAX_STRINGS = 256
# Classes of at most this many characters are expanded into their characters ("colou?r", "[sz]e").
MAX_CLASS = 4
MAX_GATES = 2  # gates a long pattern gets (``gates.literal_gates``)
# A ``\b`` of a pattern stands in its literals as this character (one no pattern or prose holds; a pattern
# that does hold it is analysed without boundaries): the analysis then carries it like any letter.
BOUNDARY = "\x08"
# Words nearly every sentence of prose holds: as a pattern's gate they are as weak as one letter, though as
# long as "dna" ({the, their} won over {blood, dna, genes, ...} and let one hate pattern run on 147 of 163
# prose sentences). Ranking, not correctness: any set a pattern needs is a valid gate.
COMMON = frozenset(
    "the their they them then than that this there to of and is in it as at on for with be are was".split()
)

Strings = frozenset[str]


class _Piece:
    """What part of a pattern may match: every string of ``exact`` (when known), and ``needs``: sets of
    which a match must contain a string of each; ``starts``/``ends``: every match begins/ends with a string of
    the set (None: unknown), which lets a ``BOUNDARY`` next to a long word list join each of its words."""

    __slots__ = ("exact", "needs", "starts", "ends")

    def __init__(
        self, exact: Strings | None, needs: tuple[Strings, ...] = (), *edges: Strings | None
    ) -> None:
        self.exact = exact
        self.needs = needs
        starts, ends = (exact, exact) if exact is not None else (*edges, None, None)[:2]
        self.starts = None if starts is None or "" in starts else starts  # "": no word to join
        self.ends = None if ends is None or "" in ends else ends


_EMPTY = _Piece(frozenset({""}))
_UNKNOWN = _Piece(None)


class Needs:
    """One set of literals a pattern needs, indexed for asking a text about it quickly."""

    __slots__ = ("strings", "index", "_short", "_by_trigram")

    def __init__(self, strings: Strings, index: int = -1) -> None:
        self.strings = strings
        self.index = index  # its place among the interned sets (the scanner's numbering); -1: not interned
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


class Required:
    """The sets one pattern needs (empty: nothing is known, the pattern always runs)."""

    __slots__ = ("needs", "ids", "top")

    def __init__(self, needs: tuple[Needs, ...]) -> None:
        self.needs = needs
        self.ids = frozenset(need.index for need in needs)
        self.top = max(self.ids, default=-1)

    def __bool__(self) -> bool:
        return bool(self.needs)


class Scanner:
    """Which of the given sets (all interned, or a few rules') have a string in a text, in one pass."""

    def __init__(self, needs: list[Needs]) -> None:
        self.count = len(needs)
        sets_of: dict[str, set[int]] = {}
        for need in needs:
            for literal in need.strings:
                sets_of.setdefault(literal, set()).add(need.index)
        # the automaton answers a literal's number; the text's literals are counted once before their sets
        # are joined (a sentence holds "e" and "the" many times, the union is the costly part)
        self._sets = tuple(frozenset(sets) for sets in sets_of.values())
        self._automaton: Any = None
        if sets_of:
            self._automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
            for number, literal in enumerate(sets_of):
                self._automaton.add_word(literal, number)
            self._automaton.make_automaton()

    def present(self, text: str) -> frozenset[int]:
        if self._automaton is None:
            return frozenset()
        sets = self._sets
        return frozenset().union(*[sets[n] for n in {n for _, n in self._automaton.iter(text)}])


class Probe:
    """One text's answers to "does it hold one of these strings?": every interned set asked at once (one
    scan, for a text many patterns are tried on), or ``scan=False`` each set when first asked (for a text
    only a few are)."""

    __slots__ = ("text", "_trigrams", "_present", "_count", "_scan", "_known")

    def __init__(self, text: str, *, scan: bool = True) -> None:
        self.text = text
        self._trigrams: frozenset[str] | None = None
        self._present: frozenset[int] | None = None
        self._count = 0
        self._scan = scan
        self._known: dict[int, bool] = {}

    def trigrams(self) -> frozenset[str]:
        if self._trigrams is None:
            text = self.text
            self._trigrams = frozenset(text[i : i + 3] for i in range(len(text) - 2))
        return self._trigrams

    def found(self, top: int) -> frozenset[int] | None:
        """The sets with a string in the text, when every set up to ``top`` was scanned for (None: ask
        ``may_match``): one answer for all of a rule's patterns instead of a call each."""
        if not self._scan:
            return None
        if self._present is None:
            scanner = current_scanner()
            self._present, self._count = scanner.present(self.text), scanner.count
        return self._present if top < self._count else None

    def may_match(self, required: Required) -> bool:
        """False only when some set has no string in the text: then the pattern cannot match it."""
        if self._scan and self._present is None:
            scanner = current_scanner()
            self._present, self._count = scanner.present(self.text), scanner.count
        if required.top < self._count:
            return required.ids <= self._present  # type: ignore[operator]
        # not scanned, or a set interned after this probe's scan (a config built meanwhile): asked one by one
        return all(self._holds(need) for need in required.needs)

    def _holds(self, need: Needs) -> bool:
        known = self._known.get(need.index)
        if known is None:
            known = self._known[need.index] = need.found_in(self)
        return known


_INTERNED: dict[Strings, Needs] = {}  # one Needs per distinct set: patterns sharing a word list share it
_lock = threading.Lock()
_scanner = Scanner([])


def pattern_needs(pattern: re.Pattern[str]) -> Required:
    """What every match of ``pattern`` holds (see the module docstring); empty: nothing is known."""
    return interned(required_sets(pattern))


def interned(sets: tuple[Strings, ...]) -> Required:
    """``sets`` (``required_sets``) interned, so that one scan answers them with every other pattern's."""
    with _lock:
        needs = []
        for strings in sets:
            if strings not in _INTERNED:
                _INTERNED[strings] = Needs(strings, len(_INTERNED))
            needs.append(_INTERNED[strings])
        return Required(tuple(needs))


def current_scanner() -> Scanner:
    """The scanner over every set interned so far (built again once more were)."""
    global _scanner
    scanner = _scanner
    if scanner.count == len(_INTERNED):
        return scanner
    with _lock:
        if _scanner.count != len(_INTERNED):
            _scanner = Scanner(list(_INTERNED.values()))
        return _scanner


def required_sets(pattern: re.Pattern[str]) -> tuple[Strings, ...]:
    """Sets of literals: every match of ``pattern`` holds a string of each (empty: nothing is known)."""
    tree = parsed(pattern)
    return () if tree is None else tree_sets(tree)


def parsed(pattern: re.Pattern[str]) -> Any | None:
    """The parse tree of a pattern without ``IGNORECASE`` (its literals are what it matches), else None."""
    try:
        return None if pattern.flags & re.IGNORECASE else _sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:  # a pattern re compiled always parses: in doubt, nothing is known
        return None


def tree_sets(tree: Any) -> tuple[Strings, ...]:
    """``required_sets`` from the parse tree (``re._parser``) of a pattern without ``IGNORECASE``."""
    piece = _sequence(list(tree))
    needs = list(piece.needs)
    if piece.exact is not None:
        needs.append(piece.exact)
    useful = {_shortest(s) for s in needs if s and "" not in s}
    return tuple(sorted(useful, key=lambda s: (len(s), sorted(s))))


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
    that holds no empty string is a set the match needs (a lone ``BOUNDARY`` joined to its neighbour's
    edge words: ``_beside``)."""
    run: Strings = frozenset({""})
    needs: list[Strings] = []
    whole = True  # every piece known and the product small: the sequence is exactly known
    before: Strings | None = None  # how the last unknown piece ends
    starts: Strings | None = None
    for op, arg in items:
        piece = _node(op, arg)
        needs += piece.needs
        if piece.exact is not None and len(run) * len(piece.exact) <= MAX_STRINGS:
            run = frozenset(a + b for a in run for b in piece.exact)
            continue
        if whole:
            starts = _joined(run, piece.starts)
        whole = False
        if "" not in run:
            needs.append(_beside(before, run, piece.starts))
        before, run = piece.ends, piece.exact if piece.exact is not None else frozenset({""})
    if whole:
        return _Piece(run, tuple(needs))
    if "" not in run:
        needs.append(_beside(before, run, None))
    ends = run if before is None else _joined(before, run)
    return _Piece(None, tuple(needs), starts, ends)


def _joined(left: Strings, right: Strings | None) -> Strings | None:
    """Each string of ``left`` followed by one of ``right``, where the product stays small."""
    if right is None or len(left) * len(right) > max(MAX_STRINGS, len(right), len(left)):
        return left if "" not in left else None
    return frozenset(a + b for a in left for b in right)


def _beside(before: Strings | None, run: Strings, after: Strings | None) -> Strings:
    """A run that is only a ``BOUNDARY`` (no text holds it as a literal) with the words beside it: the
    unknown piece after it starts with one of ``after``, the one before ends with one of ``before``."""
    if run != {BOUNDARY}:
        return run
    if after is not None:
        return frozenset(BOUNDARY + word for word in after)
    return run if before is None else frozenset(word + BOUNDARY for word in before)


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
    if op in _REPEATS:
        low, high, sub = arg
        inner = _sequence(list(sub))
        if low == 0:
            if high == 1 and inner.exact is not None:
                return _Piece(inner.exact | {""})
            return _UNKNOWN  # any number of times: unknown text, needed or not
        if low == high == 1:
            return inner
        # at least once: what one repetition needs, a match needs
        needs = inner.needs + ((inner.exact,) if inner.exact and "" not in inner.exact else ())
        return _Piece(None, needs, inner.starts, inner.ends)
    if op is getattr(_sre, "ATOMIC_GROUP", None):
        return _sequence(list(arg))
    if op in (_sre.AT, _sre.ASSERT, _sre.ASSERT_NOT):
        return _EMPTY  # zero width: the match itself holds nothing of it
    return _UNKNOWN  # ANY, NOT_LITERAL, GROUPREF, GROUPREF_EXISTS, CATEGORY...


_REPEATS = (_sre.MAX_REPEAT, _sre.MIN_REPEAT, getattr(_sre, "POSSESSIVE_REPEAT", None))


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
        choices.append(max(options, key=_selectivity))
    return _Piece(
        None,
        (frozenset[str]().union(*choices),),
        _union([a.starts for a in alternatives]),
        _union([a.ends for a in alternatives]),
    )


def _union(sets: list[Strings | None]) -> Strings | None:
    """One set of every alternative's edge words (None: some alternative's are unknown)."""
    known = [s for s in sets if s is not None]
    return frozenset[str]().union(*known) if len(known) == len(sets) else None


def _selectivity(strings: Strings) -> tuple[int, int, int]:
    """How rarely ordinary text holds a string of the set, roughly: a set is as common as its shortest
    string ("a" is in nearly every sentence, "teach" in few), then the fewer strings the rarer; a word of
    ``COMMON`` counts as one letter."""
    words = [s.replace(BOUNDARY, "") for s in strings]
    bounded = min(s.count(BOUNDARY) for s in strings)  # among equals, the one asking word boundaries
    return min(1 if s.strip() in COMMON else len(s) for s in words), -len(strings), bounded


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
