"""Literal gates: the regexes of the literals a pattern cannot match without, asked before the pattern.

Apart from ``literals.py`` (the analysis) because a gate also carries the pattern's word boundaries: a gate
on the bare "ape" of ``\\b(?:ape|...)\\b`` passed every sentence about a "cheaper" ticket or a "shape", and
the semantic tier's gate then ran its whole word list on it. A gate is searched in the text the pattern runs
on, so a ``\\b`` holds in the gate wherever it held in the match: no match is lost.
"""

from __future__ import annotations

import re
from typing import Any

from webapp.guard.moderation.literals import (
    _REPEATS,
    BOUNDARY,
    MAX_GATES,
    Strings,
    _selectivity,
    _sre,
    parsed,
    tree_sets,
)


def literal_gates(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], ...]:
    """Regexes of the sets ``pattern`` needs that are worth asking (``gates_of``), each literal with the
    word boundaries (``\\b``) the pattern puts around it: a gate on the bare "ape" of ``\\b(?:ape|...)\\b``
    passed every sentence about a "cheaper" ticket or a "shape". A gate is searched in the text the pattern
    runs on, so a ``\\b`` holds in the gate where it held in the match: no match is lost."""
    tree = parsed(pattern)
    if tree is None:
        return ()
    marked = _boundaries_marked(list(tree))
    return gates_of(tree_sets(marked if marked is not None else tree), pattern.flags & re.ASCII)


def gates_of(sets: tuple[Strings, ...], flags: int = 0) -> tuple[re.Pattern[str], ...]:
    """Regexes of those of ``sets`` worth asking (none holding a one-letter string, which nearly every text
    holds), the most selective first, at most ``MAX_GATES``; ``BOUNDARY`` in a literal asks for a ``\\b``."""
    ranked = sorted(sets, key=_selectivity, reverse=True)
    worth = [s for s in ranked if min(len(x.replace(BOUNDARY, "")) for x in s) >= 2][:MAX_GATES]
    return tuple(re.compile(_trie(sorted(s)).replace(BOUNDARY, r"\b"), flags) for s in worth)


def _boundaries_marked(items: list[tuple[Any, Any]]) -> list[tuple[Any, Any]] | None:
    """The parse tree with each ``\\b`` a ``BOUNDARY`` literal (None: the pattern holds that character)."""
    out: list[tuple[Any, Any]] = []
    for op, arg in items:
        if op is _sre.AT and arg is _sre.AT_BOUNDARY:
            op, arg = _sre.LITERAL, ord(BOUNDARY)
        elif (
            op is _sre.LITERAL
            and arg == ord(BOUNDARY)
            or op is _sre.IN
            and (_sre.LITERAL, ord(BOUNDARY)) in arg
        ):
            return None
        elif op is _sre.SUBPATTERN or op in _REPEATS:
            inner = _boundaries_marked(list(arg[-1]))
            if inner is None:
                return None
            arg = (*arg[:-1], inner)
        elif op is _sre.BRANCH:
            branches = [_boundaries_marked(list(b)) for b in arg[1]]
            if any(b is None for b in branches):
                return None
            arg = (arg[0], branches)
        elif op is getattr(_sre, "ATOMIC_GROUP", None):
            inner = _boundaries_marked(list(arg))
            if inner is None:
                return None
            arg = inner
        out.append((op, arg))
    return out


def _trie(literals: list[str]) -> str:
    """A regex matching each of the sorted ``literals``, the longest one first where several match."""
    branches = []
    i = 0
    while i < len(literals):
        head = literals[i][0]
        j = i
        while j < len(literals) and literals[j][0] == head:
            j += 1
        rest = [literal[1:] for literal in literals[i:j]]
        tails = [r for r in rest if r]
        inner = _trie(tails) if tails else ""
        if inner and "" in rest:
            inner = f"(?:{inner})?"  # greedy: the longer literal is tried first, this one if it fails
        branches.append(re.escape(head) + inner)
        i = j
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
