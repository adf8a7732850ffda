"""Words that are slurs in one sense and not in another, read in the sense their sentence gives them.

A slur has homonyms ("a fag" is a cigarette in British English, a dyke holds back the sea, a chink in the
armour is a gap) and is reclaimed by the people it was aimed at ("I'm a proud dyke", "we queers"). A rule
that sees only the word blocks all of these. So, before any rule runs, a unit whose context settles the
other sense has the word replaced by what it means there ("dam", "lesbian"), and every tier judges that
reading: the slur rule no longer fires, while hate said with the neutral word still does ("As a dyke
myself, dykes are disgusting" reads "as a lesbian myself, lesbians are disgusting": blocked as hate).

Two limits keep this from becoming an excuse:
- a homonym is read only when nothing hostile stands in the unit (violence, dehumanising or derogatory
  words, hate): "that fag smoking outside should be shot" keeps its slur;
- a reclaimed slur is read only where the speaker names themselves or their own people with it (the span
  that says so), never elsewhere in the sentence: "As a dyke I say faggots should burn" still blocks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from webapp.guard.moderation.text import Unit


@dataclass(frozen=True)
class Sense:
    word: re.Pattern[str]  # the slur's spellings
    means: str  # what it is read as when ``context`` says so
    context: re.Pattern[
        str
    ]  # homonym: a word of the other sense; reclaimed: where a speaker names themselves

    def reading(self, match: re.Match[str]) -> str:
        """The matched span with the word read as ``means``."""
        return self.word.sub(self.means, match.group(0))


@dataclass(frozen=True)
class Senses:
    homonyms: tuple[Sense, ...] = ()
    reclaimed: tuple[Sense, ...] = ()
    hostile: re.Pattern[str] = re.compile("(?!)")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None, expand: Callable[[str], str]) -> Senses:
        """``expand`` turns lexicon names ({violent}) into their alternatives; ``{word}`` in a reclaimed
        context stands for the entry's own spellings."""
        data = data or {}

        def sense(entry: Mapping[str, Any]) -> Sense:
            word = str(entry["word"])
            context = str(entry["context"]).replace("{word}", f"(?:{word})")
            return Sense(re.compile(rf"\b(?:{word})\b"), str(entry["means"]), re.compile(expand(context)))

        hostile = str(data.get("hostile") or "(?!)")
        return cls(
            tuple(sense(e) for e in data.get("homonyms") or ()),
            tuple(sense(e) for e in data.get("reclaimed") or ()),
            re.compile(expand(hostile)),
        )

    def read(self, text: str) -> str:
        for sense in self.reclaimed:
            text = sense.context.sub(sense.reading, text)
        if self.homonyms and not self.hostile.search(text):
            for sense in self.homonyms:
                if sense.word.search(text) and sense.context.search(text):
                    text = sense.word.sub(sense.means, text)
        return text

    def read_units(self, units: Sequence[Unit]) -> list[Unit]:
        if not self.homonyms and not self.reclaimed:
            return list(units)
        return [self._read_unit(u) for u in units]

    def _read_unit(self, unit: Unit) -> Unit:
        text = self.read(unit.text)
        if text == unit.text:
            return unit
        return replace(
            unit,
            text=text,
            outside_quotes=self.read(unit.outside_quotes),
            quotes=tuple(self.read(q) for q in unit.quotes),
            as_written=self.read(unit.as_written) if unit.as_written else "",
        )
