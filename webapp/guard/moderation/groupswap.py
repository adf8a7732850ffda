"""Group-consistent scoring: a harm said of one group is scored as if said of the groups the examples know.

The classifier was fitted on each template phrasing with three of its nine groups, and MiniLM places group
names differently, so the same sentence can clear the threshold for one group and not for another (measured
on the external suite: in 67 of its 341 hateful templates one group was blocked and another passed). Naming
every group as one neutral phrase everywhere gained recall but cost legitimate text: positive and neutral
statements about a group ("X are here to stay") are what the classifier over-reads, and a neutral phrase
carries that over-reading to every group. So the swap is narrow: only a unit that names a group and a word
of harm (an insult, a dehumanising word, a misdeed, violence), that denies nothing, that tells no history or
news ("In 1938 propaganda said ...": what was done to a group is no claim about it) and that scored below the
tier's threshold is scored again with its group named as each reference group. The best of those readings
counts only when it clears a bar of its own, above the tier's threshold (a maximum over several readings is
easier to reach than one score), and only for the harms the configuration lists. "hate" was left out at
first: a neutral sentence about what a group went through ("Laws once barred X from owning property"), read
as said of another group, cleared the bar too; since round 10 the history words ("once") and refusals of the
claim ("I refuse to think of X as inferior") are in ``unless``, and so is praise said without a negation, and
"hate" is kept ("Lesbians only know how to lie and cheat" passed while the same of Sikhs was blocked).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webapp.guard.moderation.lexicon import expand

Score = tuple[float, str]  # probability of harm, nearest harmful category


@dataclass(frozen=True)
class GroupSwap:
    # a group's name, as the rules' word list spells it, not before a thing named after it
    group: re.Pattern[str]
    named: re.Pattern[str]  # any group's name, swapped throughout once the unit names the group itself
    when: re.Pattern[str]  # a word of harm the unit must hold
    unless: re.Pattern[str]  # a unit that tells what was done (history, news) is read as written
    groups: tuple[str, ...]  # the reference groups the unit is read with
    threshold: float  # the bar the swapped readings must clear
    agree: int  # how many of the swapped readings must clear it
    categories: frozenset[str]  # the harms a swapped reading may find (empty: any)

    @classmethod
    def from_config(cls, data: Mapping[str, Any], lexicon: Mapping[str, str]) -> GroupSwap | None:
        """``{"groups": [...], "when": regex, "unless": regex, "things": regex, "threshold": float, "agree": int,
        "categories": [...]}`` (lexicon names allowed in the regexes); None when no groups are configured or
        the lexicon has no group list."""
        groups = tuple(str(g) for g in data.get("groups") or ())
        if not groups or "group" not in lexicon:
            return None
        # a group's name before a thing named after it ("Chinese food") is no group: nothing to swap, unless
        # the unit names the group too ("Chinese food revolting, Chinese people worse": both are swapped)
        things = str(data.get("things") or "")
        after = rf"(?!\s+(?:{things})\b)" if things else ""
        return cls(
            group=re.compile(expand(r"\b(?:{group})\b" + after, lexicon)),
            named=re.compile(expand(r"\b(?:{group})\b", lexicon)),
            when=re.compile(expand(str(data.get("when") or r"(?!)"), lexicon)),
            unless=re.compile(expand(str(data.get("unless") or r"(?!)"), lexicon)),
            groups=groups,
            threshold=float(data.get("threshold", 0.92)),
            agree=min(int(data.get("agree", 1)), len(groups)),
            categories=frozenset(str(c) for c in data.get("categories") or ()),
        )

    def readings(self, text: str) -> list[str]:
        """The unit with every group it names replaced by each reference group (none if it does not
        qualify: no group, no word of harm, or a telling of what was done)."""
        if not self.group.search(text) or not self.when.search(text) or self.unless.search(text):
            return []
        return [self.named.sub(name, text) for name in self.groups]

    def raised(
        self,
        score: Callable[[Sequence[str]], list[Score]],
        texts: Sequence[str],
        scores: Sequence[Score],
        *,
        below: float,
        skip: Sequence[bool],
    ) -> list[Score]:
        """``scores`` with each qualifying unit's score replaced by its best swapped reading's, where that
        clears ``threshold``. ``below``: units scoring this much already need no second reading; ``skip``:
        units left as they are (those whose negation may deny harm)."""
        wanted = {
            i: self.readings(text) for i, text in enumerate(texts) if not skip[i] and scores[i][0] < below
        }
        wanted = {i: r for i, r in wanted.items() if r}
        if not wanted:
            return list(scores)
        flat = [reading for readings in wanted.values() for reading in readings]
        swapped = iter(score(flat))
        raised = list(scores)
        for i, readings in wanted.items():
            ranked = sorted((next(swapped) for _ in readings), key=lambda s: s[0], reverse=True)
            if ranked[self.agree - 1][0] >= self.threshold and self._finds(ranked[0][1]):
                raised[i] = ranked[0]
        return raised

    def _finds(self, category: str) -> bool:
        return not self.categories or category in self.categories
