"""Words that are slurs in one sense and not in another, read in the sense their sentence gives them.

A slur has homonyms ("a fag" is a cigarette in British English, a dyke holds back the sea, a chink in the
armour is a gap) and is reclaimed by the people it was aimed at ("I'm a proud dyke", "we queers"). A rule
that sees only the word blocks all of these. So, before any rule runs, a unit whose context settles the
other sense has the word replaced by what it means there ("dam", "lesbian"), and every tier judges that
reading: the slur rule no longer fires, while hate said with the neutral word still does ("As a dyke
myself, dykes are disgusting" reads "as a lesbian myself, lesbians are disgusting": blocked as hate).

Two limits keep this from becoming an excuse:
- a homonym is read only where its own clause settles the sense, and only when nothing hostile stands in
  that clause (violence, dehumanising or derogatory words, hate): "that fag smoking outside should be shot"
  keeps its slur, and so does "the fags" in "smoking a fag while watching the fags parade";
- a reclaimed slur is read only where the speaker names themselves or their own people with it (the span
  that says so), never elsewhere in the sentence: "As a dyke I say faggots should burn" still blocks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from webapp.guard.moderation.gates import literal_gates
from webapp.guard.moderation.text import Unit


@dataclass(frozen=True)
class Sense:
    word: re.Pattern[str]  # the slur's spellings
    means: str  # what it is read as when ``context`` says so
    context: re.Pattern[
        str
    ]  # homonym: a word of the other sense; reclaimed: where a speaker names themselves

    def reading(self, match: re.Match[str]) -> str:
        """The matched span with the word read as ``means`` where it names the speaker's own people: not
        where it is said of someone else inside the span ("As a gay man I can say this: you are a faggot",
        "As a queer woman, the faggots next door ...")."""
        start = match.start()
        return self.word.sub(
            lambda w: w.group(0) if _said_of_others(match.string, start + w.start()) else self.means,
            match.group(0),
        )

    def homonym_reading(self, text: str, hostile: re.Pattern[str]) -> str:
        """``text`` with each occurrence of the word read as ``means`` where its own clause settles that sense
        (a word of the sense a few words away, or a phrase that holds it) and says nothing hostile: not
        every occurrence in a unit that has one ("Pass me the lighter, you fag", "Smoking a fag while
        watching the fags parade"), never one aimed at someone, and never where its clause is hostile ("That
        fag smoking outside should be shot"); hostility in another clause ("The dyke burst and the flood
        killed three people") is no reason to read the dam as a slur."""
        words = list(self.word.finditer(text))
        contexts = list(self.context.finditer(text))
        # a context that holds the word itself ("a chink in the armour", "spic and span") settles that one
        phrases = [c for c in contexts if any(c.start() <= w.start() and w.end() <= c.end() for w in words)]
        nearby = [c for c in contexts if c not in phrases]
        return self.word.sub(
            lambda w: self.means if _in_sense(text, w, phrases, nearby, hostile) else w.group(0),
            text,
        )


# Who a slur is said of, from the words before it: a person addressed or described ("you fag", "he is a
# chink", "our maid is a spic") is never the speaker naming themselves, nor the other sense of the word.
_AIMED = re.compile(
    r"(?:\b(?:you|ya|u)(?:'re| are)?|\b(?:he|she|it|they|that|this|those|these)(?:'s|'re| is| are| was| were)"
    r"|\b(?<!there )(?<!here )(?:is|was)|\b(?!(?:i|we|you|they|there|here|where|what|let)')\w+'s)\s+"
    r"(?:(?:such|so|a|an|one|the|\w+ly|fucking|dirty|filthy|lazy|little|stupid|big|real|total)\s+){0,2}$"
)
# ...nor one pointed at ("the faggots next door"), unless it is the word itself that is named ("the word dyke")
# or what the speaker's own subject is ("we are the happiest dykes", "I'm the proudest dyke you'll meet")
_OTHERS = re.compile(
    r"(?<!\bare )(?<!'re )(?<!\bwere )(?<!\bam )(?<!'m )\b(?:the|those|these|that|this|them|some|all)\s+"
    r"(?!(?:word|term|slur|label|name)\s)(?:\w+\s+)?$"
)
# ...nor one followed by who they are or where they live ("the coon who lives on our street", "the fags next
# door", "that chink restaurant owner")
_PERSON_AFTER = re.compile(
    r"\s+(?:who|whom|whose|next door|down the (?:road|street|hall)|across the (?:road|street)|over there"
    r"|(?:restaurant |shop |corner shop )?(?:owners?|man|men|woman|women|guy|guys|boy|girl|kid|kids|family"
    r"|couple|neighbou?rs?|teacher|doctor|people|lad|lads|bloke|blokes)\b)"
)
_PERSON = re.compile(r"\b(?:he|she|him|her|they|them|you|u|ya)\b")
_NOT_HOSTILITY = r"(?!\s+(?:haters?|hating|bashers?|bashing|killers?|killing|hunters?|hunting))"
_NEAR_WORDS = 8  # words between a word of the other sense and the homonym it settles, at most
# where a clause ends: its punctuation, or a conjunction that starts another ("... while watching the fags");
# "and"/"or" only before a new subject ("the dyke burst and the flood ..."), not between nouns ("faggots and
# peas")
_CLAUSE_BREAK = re.compile(
    r"[,;:.!?()]|\s(?:but|so|while|whilst|when|whenever|because|cause|since|though|although|whereas|until"
    r"|unless|then|after|before|as)\s|\s(?:and|or)\s(?=(?:the|a|an|my|his|her|their|our|your|this|that"
    r"|these|those|i|we|he|she|they|it|you|there)\s)"
)


def _aimed(text: str, at: int) -> bool:
    return bool(_AIMED.search(text[max(0, at - 40) : at]))


def _said_of_others(text: str, at: int) -> bool:
    return _aimed(text, at) or bool(_OTHERS.search(text[max(0, at - 30) : at]))


def _clause(text: str, word: re.Match[str]) -> tuple[int, int]:
    """The span of the clause that holds ``word``."""
    start = max((b.end() for b in _CLAUSE_BREAK.finditer(text, 0, word.start())), default=0)
    after = _CLAUSE_BREAK.search(text, word.end())
    return start, after.start() if after else len(text)


def _in_sense(
    text: str,
    word: re.Match[str],
    phrases: Sequence[re.Match[str]],
    nearby: Sequence[re.Match[str]],
    hostile: re.Pattern[str],
) -> bool:
    """A phrase of the other sense holding this occurrence ("a chink in the armour"), or a word of it a few
    words away in the same clause ("smoking a fag", not "... the fags parade"); never an occurrence aimed
    at someone or followed by who they are ("the coon who lives on our street"), nor in a hostile clause."""
    # a name that holds the word from before it ("Offa's Dyke") is no possessive aimed at a person
    named = any(p.start() < word.start() and word.end() <= p.end() for p in phrases)
    if (_aimed(text, word.start()) and not named) or _PERSON_AFTER.match(text, word.end()):
        return False
    start, end = _clause(text, word)
    # the word itself is no hostility around it ("fight cancer": "cancer" is also a word that dehumanises)
    if hostile.search(text[start : word.start()]) or hostile.search(text[word.end() : end]):
        return False
    if named or any(p.start() <= word.start() and word.end() <= p.end() for p in phrases):
        return True
    for context in nearby:
        if context.start() < start or context.end() > end:
            continue
        between = text[min(context.end(), word.end()) : max(context.start(), word.start())]
        if len(between.split()) <= _NEAR_WORDS:
            return True
    return False


@dataclass(frozen=True)
class Senses:
    homonyms: tuple[Sense, ...] = ()
    reclaimed: tuple[Sense, ...] = ()
    hostile: re.Pattern[str] = re.compile("(?!)")
    # per reclaimed sense: literals its context cannot match without (literals.py); every unit of every
    # check is read, and a text without them is most text
    _gates: tuple[tuple[re.Pattern[str], ...], ...] = field(init=False, repr=False, compare=False)
    # any homonym's word, in one search: a unit that has none (most units) skips a search per homonym
    _any_homonym: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_gates", tuple(literal_gates(s.context) for s in self.reclaimed))
        words = "|".join(f"(?:{s.word.pattern})" for s in self.homonyms) or "(?!)"
        object.__setattr__(self, "_any_homonym", re.compile(words))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None, expand: Callable[[str], str]) -> Senses:
        """``expand`` turns lexicon names ({violent}) into their alternatives; ``{word}`` in a reclaimed
        context stands for the entry's own spellings."""
        data = data or {}

        def sense(entry: Mapping[str, Any]) -> Sense:
            word = str(entry["word"])
            # ...never the word before a noun of hostility to its people ("a real nigga hater")
            context = str(entry["context"]).replace("{word}", f"(?:{word}){_NOT_HOSTILITY}")
            return Sense(re.compile(rf"\b(?:{word})\b"), str(entry["means"]), re.compile(expand(context)))

        hostile = str(data.get("hostile") or "(?!)")
        return cls(
            tuple(sense(e) for e in data.get("homonyms") or ()),
            tuple(sense(e) for e in data.get("reclaimed") or ()),
            re.compile(expand(hostile)),
        )

    def read(self, text: str) -> str:
        for sense, gates in zip(self.reclaimed, self._gates, strict=True):
            if all(gate.search(text) for gate in gates):
                text = sense.context.sub(sense.reading, text)
        # hostility in another clause aimed at a person ("I saw a fag smoking a fag, and he should be shot")
        # may be about the one the slur named: then no homonym is read, as before clauses were told apart
        if not self._any_homonym.search(text) or _PERSON.search(text) and self.hostile.search(text):
            return text
        for sense in self.homonyms:
            if sense.word.search(text) and sense.context.search(text):
                text = sense.homonym_reading(text, self.hostile)
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
