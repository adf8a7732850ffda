"""One parse of a moderation pattern for its two compilations and its literal analysis.

A case-insensitive rule is compiled twice (with ``IGNORECASE`` and without: ``caseless.py``) and its parse
tree read once more for the literals a match needs (``literals.py``). ``re.compile`` parses its string
each time, and parsing is most of compiling: the rules' ~250 patterns of ~520,000 characters (word lists
expanded) cost ~7 s of start-up CPU parsed three times. The tree does not depend on ``IGNORECASE``: the
standard library's parser reads only inline flags and ``VERBOSE``, and its compiler applies the case
flag when it emits code. So the tree is parsed once without the flag and compiled both ways, exactly as
``re._compiler.compile`` does from a string (the same steps after its parse; tests compare the code).
"""

from __future__ import annotations

import importlib
import re
from typing import Any

# The standard library's private parser and compiler (Python 3.11+): typed loosely, their shapes are data
_parser: Any = importlib.import_module("re._parser")
_compiler: Any = importlib.import_module("re._compiler")
_sre: Any = importlib.import_module("_sre")


def parse(source: str, flags: int) -> Any:
    """The parse tree of ``source`` (``re._parser.SubPattern``)."""
    return _parser.parse(source, flags)


def compile_tree(source: str, tree: Any, flags: int) -> re.Pattern[str]:
    """``re.compile(source, flags)`` from ``tree``, its parse with no other flags than ``flags`` may add
    ``IGNORECASE`` to (``re._compiler.compile`` after its parse)."""
    code = _compiler._code(tree, flags)
    state = tree.state
    index_group: list[str | None] = [None] * state.groups
    for name, index in state.groupdict.items():
        index_group[index] = name
    pattern: re.Pattern[str] = _sre.compile(
        source, flags | state.flags, code, state.groups - 1, state.groupdict, tuple(index_group)
    )
    return pattern
