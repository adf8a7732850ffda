"""A sentence read without its negation, to see whether the negation made it better or worse.

Embeddings barely see negation ("X are not vermin" sits next to "X are vermin"): the semantic tier scores a
negated unit again without it (semantic.py), and the stance judge reads a quoted claim both ways
(stance.py). Kept apart so both read it the same way.
"""

from __future__ import annotations

import re

_UNNEGATE = (
    (re.compile(r"\b(no one|nobody)\b"), "everyone"),
    (re.compile(r"\bnothing\b"), "everything"),
    (re.compile(r"\b(can't|cannot)\b"), "can"),
    (re.compile(r"\bwon't\b"), "will"),
    (re.compile(r"\b(\w+)n't\b"), r"\1"),
    # "no more killing of X" is a call to stop a harm, left as written: the tier then leaves it to the rules
    (re.compile(r"\b(not|never|no)\s+(?!more\s+\w+ing\b)"), ""),
)


def unnegate(text: str) -> str:
    for pattern, replacement in _UNNEGATE:
        text = pattern.sub(replacement, text)
    return text
