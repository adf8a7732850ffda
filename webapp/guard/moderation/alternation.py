"""A long list of alternatives searched only in the alternatives whose words a text holds.

The context rules' lists (endorsement, agreement, condemnation, frames) are one regex of hundreds of
alternatives, and the growing sentence of a streamed answer is searched with each at every check: ~90-230 us
a list on ordinary prose. Their gates (``gates.gates_of``) take one set of literals for the whole list, the
union of one set per alternative, and a few alternatives needing only "he ", "is" or "the" let most prose
through. Here each alternative keeps its own sets: one pass of a trie over all their literals
(``literals.Scanner``) names the alternatives a text may match, and only those run, each a small regex.

The answer is exact: the list matches at a position exactly when one of its alternatives does there, so the
leftmost start among the alternatives that ran is the list's leftmost start (the others cannot match
anywhere), and the list's own regex matched at that position gives the match ``search`` would have.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from webapp.guard.moderation.literals import Needs, Scanner, Strings, tree_sets
from webapp.guard.moderation.regextree import compile_tree

_sre: Any = importlib.import_module("re._constants")
_parser: Any = importlib.import_module("re._parser")
MIN_ALTERNATIVES = 4  # fewer: the list's own gates do as well


class Alternation:
    """The alternatives of a pattern without ``IGNORECASE`` (``alternatives``), each with its sets."""

    def __init__(self, alternatives: list[tuple[re.Pattern[str], tuple[Strings, ...]]]) -> None:
        index: dict[Strings, Needs] = {}
        for _, sets in alternatives:
            for strings in sets:
                index.setdefault(strings, Needs(strings, len(index)))
        self._scanner = Scanner(list(index.values()))
        self._runs = [(regex, frozenset(index[s].index for s in sets)) for regex, sets in alternatives]

    @classmethod
    def of(cls, source: str, tree: Any, flags: int) -> Alternation | None:
        """The alternation of ``tree`` (the parse of ``source`` with ``flags``), or None for a pattern that
        is not a list of at least ``MIN_ALTERNATIVES`` alternatives."""
        branches = alternatives(tree)
        if len(branches) < MIN_ALTERNATIVES:
            return None
        return cls([(compile_tree(source, branch, flags), tree_sets(branch)) for branch in branches])

    def leftmost(self, text: str) -> int | None:
        """Where the pattern's leftmost match in ``text`` starts, or None where it has none."""
        starts = [
            found.start() for regex in self.candidates(text) if (found := regex.search(text)) is not None
        ]
        return min(starts, default=None)

    def candidates(self, text: str) -> list[re.Pattern[str]]:
        """The alternatives that may match ``text``: those with a string of each of their sets in it."""
        present = self._scanner.present(text)
        return [regex for regex, ids in self._runs if ids <= present]


def alternatives(tree: Any) -> list[Any]:
    """The pattern's alternatives as parse trees: a choice at its end opened, with what comes before it
    ("x(?:a|b)" -> xa, xb; the parser moves a prefix all alternatives share out of the choice), and so are
    choices in non-capturing groups at their ends ("(?:a|b)|c" -> a, b, c). No choice: one alternative."""
    if not tree.data:
        return [tree]
    *prefix, last = tree.data
    opened = _choices(last)
    if opened is None:
        return [tree]
    return [
        _parser.SubPattern(tree.state, prefix + leaf.data) for one in opened for leaf in alternatives(one)
    ]


def _choices(node: tuple[Any, Any]) -> list[Any] | None:
    op, av = node
    if op is _sre.BRANCH:
        return list(av[1])
    if op is _sre.SUBPATTERN and av[0] is None and not av[1] and not av[2]:
        return [av[3]]  # a non-capturing group without flags: its content, in place
    return None
