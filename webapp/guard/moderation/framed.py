"""What a sentence sets apart from its own words, read alone: text it frames as quoted, the clause after a
greeting; and placeholder Latin, which no sentence read alone makes foreign.

The language gate reads a unit's words together, so the English words of "Decoded from ROT13 it reads: Wrjf ner
irezva." outweighed its three unknown ones, and "hola" and "amigo" outweighed "los judíos son ratas" after them.
A reader sees the frame (a lead-in's colon, quotes, a code span, a greeting's comma) and reads what it holds
alone. Placeholder Latin ("Ut enim ad minim veniam ...") is words of no language anyone reads: a check that cuts
an answer at its sentence ends reads such a sentence without the English around it, and must still pass it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from webapp.guard.moderation.unknownwords import WORD

# After a lead-in's colon ("It reads: ..."), inside quotes or a code span.
_QUOTED = re.compile(r':\s+([^:]{3,})$|"([^"\n]{3,})"|“([^”\n]{3,})”|`([^`\n]{3,})`')
_QUOTE_MARKS = ':"“`'
# A greeting opening a sentence, its addressee (three words at most), a comma and the rest: "Hola amigo, ...".
_GREETED = re.compile(r"^\W*([^\W\d_]+)((?:\s+[^\W\d_]+){0,3})\s*,\s*(\S.*)$", re.DOTALL)


@dataclass(frozen=True)
class Frames:
    """``greetings``: words that open a sentence as one; ``placeholder``: placeholder Latin's words, each mapped to
    whether no other word list holds it ("in", "non", "est" are Romance languages' words too); a unit of
    ``min_words`` or more is placeholder when ``placeholder_share`` of its words are, half of them its own."""

    greetings: frozenset[str] = frozenset()
    placeholder: Mapping[str, bool] = field(default_factory=dict)
    placeholder_share: float = 1.0
    min_words: int = 3

    def quoted(self, written: str) -> list[str]:
        """What the unit frames as quoted: after a lead-in's colon, inside quotes or a code span."""
        if not any(c in written for c in _QUOTE_MARKS):
            return []
        return [next(g for g in m.groups() if g) for m in _QUOTED.finditer(written)]

    def greeted(self, written: str) -> str | None:
        """The clause after the greeting that opens the unit ("Hola amigo, los judíos son ratas."), if one does."""
        match = _GREETED.match(written)
        return match.group(3) if match and match.group(1).lower() in self.greetings else None

    def is_placeholder(self, shown: str) -> bool:
        """Whether the unit is placeholder Latin ("Ut enim ad minim veniam, quis nostrud ..."), however long."""
        if not self.placeholder:
            return False
        words = [w.lower() for w in WORD.findall(shown) if len(w) > 1]
        if len(words) < self.min_words:
            return False
        listed = [self.placeholder.get(w) for w in words]
        in_list = sum(x is not None for x in listed)
        return in_list >= self.placeholder_share * len(words) and 2 * listed.count(True) >= len(words)
