"""The language gate's last reading: a unit most of whose words are no English word, whatever its language.

Word lists name nine languages; the lead's probe wrote hate in sixteen ("Wanawake ni wajinga.", "Juutalaiset
ovat rottia.") and in sentences too short for two listed words ("Frauen sind dumm."). What every such unit
shares is that the moderation knows none of its words: the speller's dictionary (MiniLM's words, the examples'
and the rules' own) already tells English words, and the slips of them it repairs ("imigrants"), from the rest.
Names (a capital inside the sentence), acronyms, numbers and code are nobody's words and are not counted; an
inflection or a compound the dictionary lacks ("landlords", "bloodsuckers") is English.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Collection, Mapping
from dataclasses import dataclass, fields
from typing import Any, NamedTuple, Protocol

from webapp.guard.holds import code_lines
from webapp.guard.moderation.spelling import has_ending_of

# A word, with an elided article or pronoun kept as its own word ("c'est" is "c'" and "est").
WORD = re.compile(r"[^\W\d_]+'?")
# What may open a sentence inside a unit, so the capital after it is no name ("Translate: Tous les ...").
OPENS = re.compile(r"(?:^|[:\"“«(¿¡\-–—]|\s')\s*$")
# Code, numbers, paths, dotted and camel-cased names: no words of any language ("df.groupby", "x_1", "useEffect").
_CODE = re.compile(r"\S*(?:[\d_/\\=<>{}\[\]#@$%^&*+|~]|[a-z][A-Z][a-z])\S*|\S+\.\w\S*")
# What every match of ``_CODE`` holds; searched first, since ``_CODE`` tries its ``\S*`` from every character of
# plain prose, which holds none of these.
_CODE_SIGN = re.compile(r"[\d_/\\=<>{}\[\]#@$%^&*+|~]|[a-z][A-Z][a-z]|\S\.\w")
# What a reader does not read as words of a language: links, inline code, addresses.
_NOT_PROSE = re.compile(r"`[^`\n]*`|\b(?:https?|ftp)://\S+|\bwww\.\S+|\S+@\S+\.\w+")
# What each of those holds: a unit without any is prose through and through (its "\S+@" is tried at every
# character otherwise).
_NOT_PROSE_SIGNS = ("`", "://", "www.", "@")
_CODE_SIGNS = re.compile(r"[-/|=$<>{}()\[\];:_#*\\@~+%&^]")  # what no sentence of prose needs
# Lower-case words a name may hold before its capital ("de Gaulle", "van Gogh", "la France").
PARTICLES = frozenset(
    "de del della di da du des le la les van von der den ten ter el al bin ibn dos das do".split()
)
_ENDED = re.compile(r"[.!?…:;\"'”’»)\]]\s*$")
_CONTRACTED = re.compile(r"\b[a-z]+'(?:t|s|ll|re|ve|m|d)\b", re.IGNORECASE)
_PIECE = 4  # letters each word of a compound needs: shorter pieces make a compound of anything ("has-se")
_ENDINGS = frozenset(
    "s es ed ing ings er ers ly est ist ists ism ness ment ments able ful less ity ize ized ise ised ish".split()
)


class KnowsWords(Protocol):
    """Whether a lower-case word is English; ``slips``: or a slip of an English word (costlier to tell)."""

    def __call__(self, word: str, *, slips: bool = True) -> bool: ...


@dataclass(frozen=True)
class Thresholds:
    """The language gate's numbers, read from the word-list file only (its comments say what each one means)."""

    min_words: int
    min_hits: int
    per_english: float
    share: float
    chars_per_word: float
    script_words: int
    accented_share: float
    run_words: int
    run_hits: int
    unknown_words: int
    unknown_share: float
    placeholder_share: float

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Thresholds:
        names = [f.name for f in fields(cls)]
        missing = [n for n in names if n not in data]
        if missing:
            raise ValueError(f"language word list: missing thresholds {', '.join(missing)}")
        return cls(**{n: data[n] for n in names})


class Verdict(NamedTuple):
    unread: bool  # most words are no English word
    garbled: bool  # so, counting a last word that may be cut: worth reading back
    short: bool  # too short to tell alone


@dataclass(frozen=True)
class UnknownWords:
    """``knows``: whether a lower-case word is English or a slip of it; ``english``: the listed English words
    (word -> weight); ``english_also``: other languages' listed words English writes too ("plus", "ten");
    ``foreign``: other languages' listed words, foreign though MiniLM's dictionary holds them for names ("los",
    "der", "sao")."""

    knows: KnowsWords
    english: Mapping[str, float]
    english_also: frozenset[str]
    foreign: Collection[str]
    loan_phrases: re.Pattern[str]
    limits: Thresholds

    def read(self, unit: str, *, slips: bool = True) -> Verdict:
        """Whether most of the unit's words are no English word (``unread``), and the same counting a last word
        that may be cut (``garbled``: text written back to front ends in its first word, "... sweJ").
        ``slips``: a slip of an English word counts as English (False: only the dictionary's words and their
        regular endings do, so "ratas" is no "rats")."""
        # English prose holds so many listed English words that even all the others unknown would be too few
        rough = [w for w in WORD.findall(unit.lower()) if len(w) > 1]  # "i" and "a" are not counted below
        if len(rough) <= self.limits.per_english * sum(self.english.get(w, 0.0) for w in rough):
            return Verdict(False, False, False)
        unit = self.loan_phrases.sub(" ", unit.lower() if unit.isupper() else unit)
        if _CODE_SIGN.search(unit):
            unit = _CODE.sub(" ", unit)
        contractions = len(_CONTRACTED.findall(unit))
        # an unknown word of two letters says little ("ki" is a cut "kill", "ay" a sigh) unless a language lists it
        words = [
            w
            for w in plain_words(_CONTRACTED.sub(" ", unit))
            if len(w) > 2 or w in self.foreign or self.english_word(w)
        ]
        english = contractions + sum(self.english.get(w, 0.0) for w in words)
        counted = contractions + len(words)
        # most units of English prose fail on dictionary lookups alone, before any slip is looked for
        if not self._enough(sum(not self.english_word(w, slips=False) for w in words), counted, english):
            return Verdict(False, False, False)
        known = [self.english_word(w) if slips else self._as_written(w) for w in words]
        garbled = self._enough(known.count(False), counted, english)
        # an answer cut at its length limit ends mid-word ("Spammers shou"): an unknown last word not counted
        cut = bool(words) and not _ENDED.search(unit) and not known[-1]
        unread = garbled and self._enough(known.count(False) - cut, counted - cut, english)
        return Verdict(unread, garbled, counted < self.limits.min_words)

    def _enough(self, unknown: int, counted: float, english: float) -> bool:
        limits = self.limits
        return (
            unknown >= limits.unknown_words
            and unknown > limits.unknown_share * counted
            and unknown > limits.per_english * english
        )

    def english_word(self, word: str, *, slips: bool = True) -> bool:
        """``slips``: a slip of an English word counts as one (False: the dictionary alone, an upper bound on
        the unknown words)."""
        if word in self.english or word in self.english_also:
            return True
        if word in self.foreign:
            return False
        if self.knows(word, slips=False):
            return True
        if not slips:
            return False
        return self._inflected(word) or any(
            self._inflected(word[:i]) and self._inflected(word[i:])
            for i in range(_PIECE, len(word) - _PIECE + 1)
        )

    def _as_written(self, word: str) -> bool:
        exact = functools.partial(self.knows, slips=False)
        return self.english_word(word, slips=False) or has_ending_of(word, _ENDINGS, exact)

    def _inflected(self, word: str) -> bool:
        return self.knows(word) or has_ending_of(word, _ENDINGS, self.knows)


def plain_words(unit: str) -> list[str]:
    """The unit's words of two letters or more, lower-cased and unaccented, without its names (a capital
    inside the sentence, with the particles before it: "José de la Cruz" is one name) and acronyms."""
    words: list[str] = []
    name_follows = False
    for match in reversed(list(WORD.finditer(unit))):
        word = match.group(0).rstrip("'")
        named = word[:1].isupper() and not OPENS.search(unit, 0, match.start())
        if named or name_follows and word in PARTICLES:
            name_follows = True
            continue
        name_follows = False
        if len(word) >= 2 and not word.isupper():
            words.append(word.lower() if word.isascii() else unaccented(word.lower()))
    return words[::-1]


def prose_of(written: str) -> str:
    """The unit with its links, code and addresses blanked out."""
    if not any(sign in written for sign in _NOT_PROSE_SIGNS):
        return written
    return _NOT_PROSE.sub(" ", written)


def words_of(written: str) -> str:
    """The unit with its links and addresses blanked out, and its code spans too unless one reads as a sentence
    (words and sentence punctuation only): code is no language's words (``du -sh /var/log``: Swedish "du" and
    "var"), but a sentence of another language put in a code span is still that language's."""
    if not any(sign in written for sign in _NOT_PROSE_SIGNS):
        return written
    return _NOT_PROSE.sub(_as_sentence, written)


def _as_sentence(found: re.Match[str]) -> str:
    code = found.group(0).strip("`")
    return code if found.group(0).startswith("`") and not _CODE_SIGNS.search(code) else " "


def unaccented(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def fences_as_spans(text: str) -> str:
    """A fenced code block's lines each read as a code span (``ps aux | grep x`` is no unknown language)."""
    if "```" not in text and "~~~" not in text:
        return text
    return "\n".join(
        f"`{line.replace('`', chr(39))}`" if code and line.strip() else line
        for line, code in code_lines(text)
    )
