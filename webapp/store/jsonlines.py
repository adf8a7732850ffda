"""JSON Lines as every reader splits them: one object per ``\\n``, whatever line ends the stored text holds.

``json.dumps`` leaves U+0085, U+2028 and U+2029 raw inside strings, and a reader that splits lines the Unicode
way (Python's ``str.splitlines``, many editors and log tools) breaks a row there: a chatter's text could forge
a row of its own, or make an export unreadable. Written escaped, they are the same JSON to every parser.
"""

from __future__ import annotations

import json
from typing import Any

_LINE_ENDS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def dumps_line(value: Any, *, sort_keys: bool = False) -> str:
    """``value`` as one JSON line, ending in ``\\n``."""
    return json.dumps(value, ensure_ascii=False, sort_keys=sort_keys).translate(_LINE_ENDS) + "\n"


def split_lines(text: str) -> list[str]:
    """The non-blank lines of a JSON Lines text, split at ``\\n`` only (so files written raw still read)."""
    return [line for line in text.split("\n") if line.strip()]
