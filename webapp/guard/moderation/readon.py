"""Which units the semantic tier reads: the shapes of ordinary text it over-reads are left out, unless a short
comment after one may say what it meant.

The classifier reads "Black people were forced to pick cotton under slavery." near hate and "Don't crush
extended-release pills" near incitement, so the config lists such shapes (``benign``: the whole unit must be one).
A report of harm can still be turned into approval by the comment after it ("X were deported. More please.",
"X are here to stay. Like a tumour."): then the benign unit is judged as before, alone and with the comment. A
comment that only mourns, condemns or asks ("Terrible.", "Is that true?": ``mourning``) keeps the report benign.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from webapp.guard.moderation.text import Unit

COMMENT_WORDS = 6  # a sentence this short after a benign one may be a comment on it ("More please.")
# Leading conjunctions and trailing punctuation around a unit, not part of its shape.
_EDGES = re.compile(r"^\W*(?:(?:and|but|so|yes|yeah|well|after all|of course)\W+)*|[\s.!?,;:'\")]+$")


@dataclass(frozen=True)
class ReadOn:
    benign: re.Pattern[str] | None = None
    mourning: re.Pattern[str] | None = None
    group: re.Pattern[str] | None = None  # any group's name: a sentence naming one is no mere comment

    def units(self, units: Sequence[Unit]) -> list[Unit]:
        """The units without the benign ones, each benign one kept, with the comment joined to it, where a
        comment follows (``comment_after``)."""
        kept: list[Unit] = []
        for i, unit in enumerate(units):
            if not self.is_benign(unit):
                kept.append(unit)
            elif (after := self.comment_after(units[i + 1 :])) is not None:
                joined = f"{unit.plain} {after.plain}"
                kept += [unit, Unit(joined, joined, (), endorsed=unit.endorsed)]
        return kept

    def comment_after(self, later: Sequence[Unit]) -> Unit | None:
        """The short comment after a benign unit, unless it only mourns or asks about it ("Terrible.", "Is that
        true?": what follows a question answers it, "Why? Profit."; an approval after one, "Is it true? Good.",
        is a sequel's, context.py). A comment benign of its own ("Ask your pharmacist first.") is passed over
        for the one after it."""
        for unit in (u for u in later if u.within is None):
            if not self.reads_on(unit) or is_whole(self.mourning, unit):
                return None
            if not self.is_benign(unit):
                return unit
        return None

    def reads_on(self, unit: Unit) -> bool:
        """A sentence too short to stand alone that names no group: a comment on the one before."""
        grouped = self.group is not None and bool(self.group.search(unit.plain))
        return not grouped and len(unit.plain.split()) <= COMMENT_WORDS

    def is_benign(self, unit: Unit) -> bool:
        """A unit that is nothing but a benign shape (the whole unit: one more word, "X are here to stay, like
        a plague", and it is judged again); a clause with its "they" resolved is read both ways ("..., they
        are human beings" is "X are human beings")."""
        return is_whole(self.benign, unit) or (
            unit.within is not None and is_whole(self.benign, Unit(unit.text, unit.text, ()))
        )


def is_whole(pattern: re.Pattern[str] | None, unit: Unit) -> bool:
    """Whether ``pattern`` matches the whole unit, its leading "and"/"but" and closing punctuation aside."""
    return pattern is not None and bool(pattern.fullmatch(_EDGES.sub("", unit.plain)))
