"""How the moderation rail reads text: normalised spelling, then units (sentences and clauses) with the
context a judge needs - is this unit quoting or condemning something, is it negated, who is "they".

Evasions people use on filters are undone first (leetspeak, spaced-out letters, stretched letters, chat
shorthand), so one pattern covers "kill", "k1ll", "k i l l" and "kiiill". Then each unit is judged on
its own: a hateful clause hidden after "It is wrong to say that, but ..." is judged without the frame.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from webapp.guard.moderation.pronouns import Antecedent, antecedent, has_pronoun, resolve
from webapp.guard.moderation.spelling import Speller
from webapp.guard.moderation.surface import as_shown

__all__ = ["Speller", "Unit", "normalise", "sentences", "split_units", "strip_frame"]

_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
# "$" and "@" are no word characters, so a word may start or end with one ("tran$", "$cum").
_LEET_WORD = re.compile(r"(?<![\w@$])(?=[\w@$]*[a-z])(?=[\w@$]*[013457@$])[\w@$]+(?![\w@$])")
_SPACED = re.compile(r"\b(?:[a-z] ){2,}[a-z]\b")  # "k i l l" -> "kill"
# Spaced-out letters with a leet digit among them ("m u s l 1 m s"): a digit alone is no word to translate.
# Read only when letters are most of the run ("a 1 b", "3 4 5 apples" stay as written).
_SPACED_LEET = re.compile(r"(?<![\w@$])(?:[a-z013457@$] ){2,}[a-z013457@$](?![\w@$])")
# "diiie" -> "die"; not the acronym of a hate group ("kkk" read as "k" named no perpetrator)
_STRETCHED = re.compile(r"(?!(?<![a-z])kkk\b)([a-z])\1{2,}")
# A single-quoted passage may hold apostrophes between letters ("'I'll kill them' is a threat").
_QUOTE = re.compile(
    r"[\"“”«»]([^\"“”«»]{3,}?)[\"“”«»]|(?<![a-z])'((?:[^']|(?<=[a-z])'(?=[a-z])){3,}?)'(?![a-z])"
)
_NOT_A_CLAUSE = r"(?<!anything)(?<!nothing)(?<!\ball)(?<!everything)(?<!none)"  # "anything but trouble"
# An ellipsis is a pause, not a sentence end: "X are... how do I put it... vermin" is one statement. Every cut
# starts at a space or a comma: asked first, that spares the look-behinds at every other character (the split
# of a 64-word answer took 33 us, 12 us so).
_UNIT_END = re.compile(
    r"(?=[\s,])(?:(?<=[!?;])\s+|(?<!\.\.)(?<=\.)\s+|\n+|" + _NOT_A_CLAUSE + r",?\s+\b(?:but|yet)\b\s+)"
)
# Look-alike letters lower case still makes after ``as_shown`` (which drops invisible characters and reads
# confusables): a capital it leaves, such as 'Ԁ', lowers to a look-alike of a Latin letter.
_HOMOGLYPHS = str.maketrans("аеорсхуіјѕԁɡοεαικνρτυχ", "aeopcxyijsdgoeaikvptux")
_SEPARATOR = r"[.\-_*~|/•·+]"
_DOTTED = re.compile(rf"\b(?:[a-z]{_SEPARATOR}){{2,}}[a-z]\b")  # "k.i.l.l", "k-i-l-l", "k|i|l|l", "k•i•l•l"
# Words chained by one separator read as words, as a reader reads them ("muslims-are-vermin", "jews/are/vermin",
# "kill·all·jews"). Three words or more, so "well-known" and "e-mail" stay as written.
# A chain after an article or a possessive is a compound modifier ("a state-of-the-art kill-switch", "my
# mother-in-law"), not a sentence.
_WORD_CHAIN = re.compile(
    r"(?<!\ba )(?<!\ban )(?<!\bthe )(?<!\bthis )(?<!\bthat )"
    r"(?<!\bmy )(?<!\byour )(?<!\bhis )(?<!\bher )(?<!\bour )(?<!\btheir )"
    r"(?<![\w\-/+~_•·])[a-z]+([\-/+~_•·])[a-z]+(?:\1[a-z]+)+\b"
)
# What every chain above holds (a letter, its separator, a word, the same separator, a letter), found at a
# tenth of the chain's cost: its look-behinds are tried at every letter of a text that has no chain at all.
_CHAINED = re.compile(r"[a-z]([\-/+~_•·])[a-z]+\1[a-z]")
# A character every leetspeak word holds: without one, no word is translated.
_LEET_SIGN = re.compile(r"[013457@$]")
# Punctuation standing for a letter inside a word: "k!ll", "v3rm!n", "k|ll" ("|" as "1": "i", or "l").
_IN_WORD_MARK = re.compile(r"(?<=[a-z0-9])[!|](?=[a-z0-9])|\|<(?=[a-z])")


def normalise(text: str, substitutions: Mapping[str, str], *, one_as: str = "i") -> str:
    """Lower case with common obfuscations undone, read as shown (``surface.as_shown``: markup, invisible
    characters, look-alike letters); keeps punctuation so units can still be found."""
    text = unicodedata.normalize("NFKC", as_shown(text)).lower()
    text = text.replace("’", "'").replace("‘", "'").translate(_HOMOGLYPHS)
    text = _DOTTED.sub(lambda m: re.sub(_SEPARATOR, "", m.group(0)), text)
    if _CHAINED.search(text):
        text = _WORD_CHAIN.sub(lambda m: m.group(0).replace(m.group(1), " "), text)
    text = _IN_WORD_MARK.sub(lambda m: {"!": "i", "|": "1", "|<": "k"}[m.group(0)], text)
    leet = _LEET if one_as == "i" else _LEET | str.maketrans({"1": one_as})
    text = _SPACED_LEET.sub(lambda m: _spaced_leet(m.group(0), leet), text)
    if _LEET_SIGN.search(text):
        text = _LEET_WORD.sub(lambda m: m.group(0).translate(leet), text)
    text = _SPACED.sub(lambda m: m.group(0).replace(" ", ""), text)
    text = _STRETCHED.sub(r"\1", text)
    text = _ECHO.sub(" jews ", text)
    if substitutions:
        text = _phrases(tuple(substitutions)).sub(lambda m: substitutions[m.group(1)], text)
    return text


# The antisemitic "echo": whatever word stands in triple parentheses ("the (((bankers)))") names Jews
_ECHO = re.compile(r"\({3}\s*[^()\s][^()]{0,39}?\s*\){3}")


def _spaced_leet(run: str, leet: dict[int, str]) -> str:
    letters = sum(c.isalpha() for c in run[::2])
    return run.translate(leet) if letters >= 3 and letters * 2 > len(run[::2]) else run


@functools.lru_cache(maxsize=8)
def _phrases(keys: tuple[str, ...]) -> re.Pattern[str]:
    longest_first = sorted(keys, key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(map(re.escape, longest_first)) + r")\b")


@dataclass(frozen=True)
class Unit:
    """One sentence or clause, normalised, with the context rules need."""

    text: str  # pronouns resolved to the group named just before, when there was one
    outside_quotes: str  # the unit with quoted passages taken out
    quotes: tuple[str, ...]  # the quoted passages
    as_written: str = ""  # before pronouns were resolved (what the embedding judges: "they" is not a slur)
    within: Unit | None = None  # for a clause judged on its own: the sentence it is part of
    # the sentence (or "but" clause) before and the two after, outside their quotes: a quote is often
    # condemned, or agreed with, in the next sentence ('"X are vermin." I had to read that at school.')
    around: str = ""
    # a later sentence agrees with what this one quotes or frames ("..., said no one", "It's the truth"):
    # whatever it says about condemning it, it is no counter-speech
    endorsed: bool = False

    @property
    def plain(self) -> str:
        return self.as_written or self.text


# Where a sentence goes on about the group it named ("I've met many X and they are all ...", "X, I can't
# stand them"): the clause after it is judged again on its own, with its pronoun resolved.
_CLAUSE_END = re.compile(r"\s*[,;:]\s+|\s+(?:-|and|but|because|cause|since|while|yet|though)\s+")
# Opinion and question frames carry no judgement of their own ("I think X are ...", "Isn't it obvious
# that X are ..."); they only dilute what the embedding sees, and their "isn't" reads as a negation.
_OPINION_FRAME = re.compile(
    r"^(?:(?:honestly|frankly|personally|seriously|clearly|obviously|basically|tbh|imo|imho"
    r"|to be (?:honest|frank)|let's be (?:honest|real)|in my (?:honest |humble )?(?:opinion|view|experience)"
    r"|if you ask me|face it|admit it|the truth is|the fact is|everyone knows|we all know"
    r"|i (?:really |honestly |truly |just |genuinely |firmly |strongly )?(?:think|believe|reckon|guess|suppose)"
    r"(?: that)?|i (?:feel|know|am sure|'m sure|am convinced|'m convinced) that"
    r"|it(?:'s| is) (?:obvious|clear|a fact|true|no secret) that|isn't it (?:obvious|clear|true)(?: that)?"
    r"|(?:don't|do|wouldn't|would) you (?:think|agree|say)(?: that)?"
    r"|am i the only one who (?:thinks|believes)(?: that)?)[,:]?\s+)+"
)


def strip_frame(text: str) -> str:
    """The unit without a leading opinion or question frame (kept whole if nothing would be left)."""
    stripped = _OPINION_FRAME.sub("", text)
    return stripped if len(stripped.split()) >= 2 else text


# A negative question asserts: "Aren't X just parasites?", "Don't X deserve to be shot?", "Wouldn't it be
# better if X were dead?", "Why can't X stop being so violent?", "Are X not vermin?". Its "n't" is no denial,
# so the unit is read as the statement it makes, in a statement's order ("X are just parasites?") that the
# rules are written for. Only where the auxiliary opens the unit and a subject follows it: an imperative
# ("Don't call X vermin", "Don't you dare", "Never hurt X") keeps its negation. No "?" is needed: a streamed
# question shows its words before its mark, and a unit that opens with an auxiliary and its subject asks.
_AUXILIARY = r"are|is|was|were|do|does|did|can|could|would|should|will|must|have|has|had|need|might|shall"
_CONTRACTED = r"are|is|was|were|do|does|did|ca|could|would|should|wo|must|have|has|had|ai|need|might|sha"
# A lead-in of up to three words set off by a comma or colon ("tell me, ", "be honest: ") is no subject.
_QUESTION_OPENING = re.compile(
    r"^(?P<lead>(?:(?:[a-z']+\s+){0,2}[a-z']+\s*[,:]\s+)?"
    r"(?:(?:so|but|and|then|well|honestly|seriously|come on|i mean|like)\b,?\s+)*)"
    r"(?P<why>why\s+|how come\s+)?"
    rf"(?:(?P<short>{_CONTRACTED})n't|(?P<cannot>can)not|(?P<spelt>{_AUXILIARY})\s+not|(?P<full>{_AUXILIARY}))\s+"
)
_SHORT_FORMS = {"wo": "will", "ai": "is", "ca": "can", "sha": "shall"}
_DETERMINER = r"(?:all|most|many|some|the|these|those|our|your|their)\s+"
_DETERMINERS = re.compile(rf"(?:{_DETERMINER}){{0,2}}")
_PRONOUN_SUBJECT = re.compile(
    r"(?:you|we|they|he|she|it|i|there|people|everyone|everybody|someone|somebody|this|that)\b"
    rf"|(?:{_DETERMINER}){{1,2}}[\w-]+\b"
)
# "Don't you dare call X vermin", "Don't anyone touch them": a prohibition that names whom it forbids
_IMPERATIVE = re.compile(r"(?:you\s+)?dare\b|(?:anyone|anybody|ever)\b")
_LATE_NOT = re.compile(r"\s*not\b")
# Restraint forbidden is an order: "don't hesitate to shoot x" says "shoot x".
_UNRESTRAINED = re.compile(
    r"^(?:(?:so|and|just)\s+)?(?:don't|do not|never)\s+(?:ever\s+)?(?:hesitate|be afraid|be scared|be shy|think twice"
    r"|feel bad|feel guilty|hold back)\s+(?:(?:to|about|before|from|when)\s+)?"
)
# Not "who can't stand x?": that one says everyone hates them, and the rules read it as it is.
_WHO_NOT = re.compile(r"^who\s+(?P<verb>would|wo|does|do|did|should|is|are|was|were)n't\s+")


def asserted(text: str, group: re.Pattern[str]) -> str:
    """A negative question read as the statement it makes ("aren't x vermin?" -> "x are vermin?", "why
    not get rid of x?" -> "get rid of x?"), and a denial that is itself denied read as what it leaves
    ("who says x aren't vermin?" -> "x are vermin?", ``undenied``); any other text as it is."""
    if text.startswith("why not "):
        return text[len("why not ") :]
    text = undenied(_UNRESTRAINED.sub("", text, count=1), group)
    everyone = _WHO_NOT.match(text)  # "who wouldn't want x dead?": everyone would
    if everyone is not None:
        verb = everyone.group("verb")
        return f"everyone {_SHORT_FORMS.get(verb, verb)} {text[everyone.end() :]}"
    opening = _QUESTION_OPENING.match(text)
    if opening is None or _IMPERATIVE.match(text, opening.end()):
        return text
    subject_end = _subject_end(text, opening.end(), group)
    if subject_end is None:
        return text
    verb = opening.group("short") or opening.group("cannot") or opening.group("spelt")
    subject, rest = _reordered(text[opening.end() : subject_end], text[subject_end:], group)
    if verb is None:  # "are x not vermin?", "do you not think ...": a question without "not" asks only
        if not _LATE_NOT.match(rest):
            return text
        verb, rest = opening.group("full"), _LATE_NOT.sub("", rest, count=1)
    if opening.group("why") and verb in ("ca", "can", "could"):
        verb = "should"  # "why can't x be shot?" asks that they should be
    return f"{opening.group('lead')}{subject} {_SHORT_FORMS.get(verb, verb)}{rest}"


# An aside between commas after the subject ("aren't x, like, vermin?", "why shouldn't x, in your view, be
# shot?"), and the group a pronoun stands for named at the end ("aren't they vermin, the x?").
_ASIDE = re.compile(r",\s*(?:[a-z']+\s+){0,3}[a-z']+\s*,\s*")
_NAMED_LAST = re.compile(r",\s*(?:(?:the|all|those|these|all the)\s+)?(?P<named>[\w ]+?)\s*(?P<end>[?.!]*)$")


def _reordered(subject: str, rest: str, group: re.Pattern[str]) -> tuple[str, str]:
    """The subject and the rest of a negative question, without an aside and with a trailing name put in
    the pronoun's place."""
    aside = _ASIDE.match(rest)
    if aside is not None:
        rest = " " + rest[aside.end() :]
    named = _NAMED_LAST.search(rest)
    if subject in ("they", "them") and named is not None and group.fullmatch(named.group("named")):
        return named.group("named"), rest[: named.start()] + named.group("end")
    return subject, rest


# A denial that is denied asserts: a question whose answer is "nobody" about saying or denying it ("who
# says x aren't vermin?", "why would anyone deny that x are vermin?", "nobody said we shouldn't kill x"), and
# a prohibition of saying it ("don't you dare tell me x aren't vermin", "don't pretend x aren't a disease").
# A question about thinking it stays a question ("why would anyone think x are vermin?").
_DENIED_DENIAL = re.compile(
    r"^(?:who\s+(?:\w+\s+)?|(?:nobody|no one)\s+(?:\w+\s+)?"
    r"|(?:why\s+|how\s+)?(?:could|can|would|will|does|do|did)\s+(?:anyone|anybody|someone|somebody|you|one)\s+(?:\w+\s+)?"
    r"|(?:don't|do not|never)\s+(?:(?:you|ever|dare|let|anyone|anybody|even|try to|just|go)\s+){0,4})"
    r"(?:(?P<say>says?|said|claims?|claimed|argues?|argued|argue|insists?|tells?|told|tell|pretends?|pretend"
    r"|act like|believe|think)(?:\s+(?:me|you|us|them|anyone|people))?|(?P<deny>deny|denies|denied|dispute|disputes"
    r"|doubt|doubts|question))\s+(?:that\s+)?"
)
_NEGATED_PREDICATE = re.compile(
    rf"\s+(?:(?P<short>{_CONTRACTED})n't|(?P<cannot>can)not|(?P<spelt>{_AUXILIARY})\s+not)\b"
)
_PRESENT = re.compile(r"\s+(?:are|is|should|must|deserve|deserves|need|needs)\b")
_WRONG_TO = re.compile(
    r"(?:it's|it is|it was)\s+(?:wrong|bad|evil|a crime|illegal|immoral|not okay|not ok)\s+to\b"
)


def undenied(text: str, group: re.Pattern[str]) -> str:
    """What a denied denial asserts ("who says x aren't vermin?" -> "x are vermin?"); else the text."""
    denial = _DENIED_DENIAL.match(text)
    if denial is None:
        return text
    rest = text[denial.end() :]
    if _WRONG_TO.match(rest) and not denial.group("deny"):
        return _WRONG_TO.sub("it's fine to", rest, count=1)
    subject_end = _subject_end(rest, 0, group)
    if denial.group("deny"):  # what is, not what was: "can anyone deny that x were persecuted?" asks
        return rest if subject_end is not None and _PRESENT.match(rest, subject_end) else text
    negated = _NEGATED_PREDICATE.match(rest, subject_end) if subject_end is not None else None
    if negated is None:
        return text
    verb = negated.group("short") or negated.group("cannot") or negated.group("spelt")
    return f"{rest[: negated.start()]} {_SHORT_FORMS.get(verb, verb)}{rest[negated.end() :]}"


def _subject_end(text: str, at: int, group: re.Pattern[str]) -> int | None:
    """Where the subject a question's auxiliary is followed by ends: a group ("all the x"), a pronoun,
    "the world"; None if there is none."""
    determined = _DETERMINERS.match(text, at)
    named = group.match(text, determined.end()) if determined else None
    if named is not None:
        return named.end()
    pronoun = _PRONOUN_SUBJECT.match(text, at)
    return pronoun.end() if pronoun else None


def split_units(text: str, group: re.Pattern[str]) -> list[Unit]:
    units: list[Unit] = []
    last: Antecedent | None = None
    pieces = [p for p in (asserted(strip_frame(raw.strip()), group) for raw in sentences(text)) if p]
    outside = [" ".join(_QUOTE.sub(" ", p).split()) for p in pieces]
    for i, raw in enumerate(pieces):
        named = group.search(raw) is not None
        resolved = resolve(raw, last.group, subject=last.subject) if last and not named else raw
        around = " ".join(outside[max(0, i - 1) : i] + outside[i + 1 : i + 3])
        units.append(_unit(resolved, raw, around=around))
        as_group = resolve(raw, last.group) if last and not named else raw
        # "They should all be shot." after "People say X are peaceful": the rules also read it as said of X
        if as_group != resolved:
            units.append(_unit(as_group, raw, units[-1]))
        if named:
            last = antecedent(raw, group)
            units += _later_clauses(raw, group, units[-1])
        elif last is not None:
            last = last.later()
    return units


# A double-quoted passage is one piece of what is said: its own full stops and "but"s do not end the unit
# ('"X are scum. They should die," he wrote, and was jailed' is one report, not a bare "they should die");
# they and its spaces are masked until the split is done.
ENDED = re.compile(r"[.!?;:\n][\"')\]]*\s*$")  # a text whose last sentence has ended
_DOUBLE_QUOTED = re.compile(r"[\"“”«»][^\"“”«»\n]{3,400}[\"“”«»]")
_MASK = {".": "\ue000", "!": "\ue001", "?": "\ue002", ";": "\ue003", " ": "\ue004"}
_MASKED = str.maketrans(_MASK)
_UNMASK = str.maketrans({v: k for k, v in _MASK.items()})


def sentences(text: str) -> list[str]:
    """The text cut where the moderator cuts its units (sentence ends, line breaks, "but"), quotes kept whole."""
    masked = _DOUBLE_QUOTED.sub(lambda m: m.group(0).translate(_MASKED), text)
    return [piece.translate(_UNMASK) for piece in _UNIT_END.split(masked)]


def _unit(resolved: str, written: str, within: Unit | None = None, *, around: str = "") -> Unit:
    quotes = tuple(a or b for a, b in _QUOTE.findall(resolved))
    outside = _QUOTE.sub(" ", resolved) if quotes else resolved
    return Unit(resolved, " ".join(outside.split()), quotes, written, within, around)


def _later_clauses(sentence: str, group: re.Pattern[str], whole: Unit) -> list[Unit]:
    """The clauses after the group a sentence names that refer back to it by a pronoun, resolved."""
    units: list[Unit] = []
    named: str | None = None
    for clause in (c.strip() for c in _CLAUSE_END.split(sentence)):
        found = [m.group(0) for m in group.finditer(clause)]
        if found:
            named = found[-1]
        elif named and clause and has_pronoun(clause):
            units.append(_unit(resolve(clause, named), clause, whole))
    return units
