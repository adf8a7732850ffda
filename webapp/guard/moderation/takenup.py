"""After a sentence naming what saying a claim costs, whether a later clause takes the claim up again.

"Saying X are vermin lands you in court." condemns by the cost it names, but not when the speaker goes on "I'd
say it twice", "(say it anyway)", "..., which is exactly why I do it", "They are, though." or "No loss.". How
the writer joins the sentences ("…", " - ", brackets, a comma and a vocative) must not decide, so the text from
the end of the cost on is read clause by clause.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from webapp.guard.moderation.caseless import CaselessPattern
from webapp.guard.moderation.lexicon import NEVER
from webapp.guard.moderation.text import Unit

# A clause that hedges what it says of "it": negated, conditional, regretted, apologised for ("Don't say it.",
# "Think before you say it.", "I regret saying it.", "I apologised for saying it."): it takes nothing up
_HEDGED = re.compile(
    r"n't\b|\b(?:not|never|no one|nobody|none|nothing|cannot|if|before|unless|until|regret\w*|sorry|stop|stopped"
    r"|quit|wish|used to|apologi[sz]\w*|retract\w*)\b",
    re.IGNORECASE,
)
# A clause and what ends it: any punctuation a writer may join sentences with ("...", " - ", brackets)
_CLAUSE = re.compile(r"([^,;:.!?()\[\]\u2026\u2013\u2014]+?)(\s+-\s+|[,;:.!?()\[\]\u2026\u2013\u2014]+|$)")


@dataclass(frozen=True)
class CostTakenUp:
    """``cost``: what saying it costs; ``taken_up``: a clause that takes the claim up again unless it hedges
    or is asked ("Worth it?"); ``defied``: a clause that shrugs the cost off, its negation part of it ("I'm not
    scared.")."""

    cost: CaselessPattern = NEVER
    taken_up: CaselessPattern = NEVER
    defied: CaselessPattern = NEVER

    def last(
        self, units: Sequence[Unit], group: re.Pattern[str], condemns: Callable[[str], bool]
    ) -> int | None:
        """The index of the last unit that takes a claim up again after the first unit naming a cost, or None.
        A sentence that condemns anything itself ("I said it once, and I was wrong") takes nothing up, nor does
        a clause that names a group of its own."""
        top = [(i, u) for i, u in enumerate(units) if u.within is None]
        start = next(((i, m) for i, u in top if (m := self.cost.search(u.plain))), None)
        if start is None:
            return None
        found = None
        for i, unit in top:
            if i < start[0]:
                continue
            said = unit.plain[start[1].end() :] if i == start[0] else unit.plain
            if self._taken_up_in(said, group, condemns):
                found = i
        return found

    def _taken_up_in(self, said: str, group: re.Pattern[str], condemns: Callable[[str], bool]) -> bool:
        """A defying clause counts unless its sentence condemns outside the words that defy ("I'm not going
        to stop saying it" holds "stop saying it", which condemns elsewhere; "Let them come for the bigots"
        condemns); any other take-up only in a sentence that condemns nothing."""
        clauses = [(c, e) for c, e in _CLAUSE.findall(said) if c.strip() and not group.search(c)]
        defying = [c for c, _ in clauses if self.defied.search(c)]
        if defying:
            rest = said
            for clause in defying:
                rest = rest.replace(clause, self.defied.sub(" ", clause))
            return not condemns(rest)
        return not condemns(said) and any(self._takes_up(c, e) for c, e in clauses)

    def _takes_up(self, clause: str, end: str) -> bool:
        return "?" not in end and not _HEDGED.search(clause) and bool(self.taken_up.search(clause))
