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

_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_LEET_WORD = re.compile(r"\b(?=\w*[a-z])(?=\w*[013457@$])[\w@$]+\b")
_SPACED = re.compile(r"\b(?:[a-z] ){2,}[a-z]\b")  # "k i l l" -> "kill"
_STRETCHED = re.compile(r"([a-z])\1{2,}")  # "diiie" -> "die"
_QUOTE = re.compile(r"[\"“”«»]([^\"“”«»]{3,}?)[\"“”«»]|(?<![a-z])'([^']{3,}?)'(?![a-z])")
_NOT_A_CLAUSE = r"(?<!anything)(?<!nothing)(?<!\ball)(?<!everything)(?<!none)"  # "anything but trouble"
_UNIT_END = re.compile(r"(?<=[.!?;])\s+|\n+|" + _NOT_A_CLAUSE + r",?\s+\b(?:but|yet)\b\s+")
_PRONOUN = re.compile(r"\b(they|them|people like (?:that|them|this)|those people|every single one of them)\b")


# Invisible characters and look-alike letters (Cyrillic, Greek) that make a word unreadable to a pattern.
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"), None)
_HOMOGLYPHS = str.maketrans("аеорсхуіјѕԁɡοεαικνρτυχ", "aeopcxyijsdgoeaikvptux")
_DOTTED = re.compile(r"\b(?:[a-z][.\-_*~]){2,}[a-z]\b")  # "k.i.l.l", "k-i-l-l"


def normalise(text: str, substitutions: Mapping[str, str], *, one_as: str = "i") -> str:
    """Lower case with common obfuscations undone; keeps punctuation so units can still be found."""
    text = (
        unicodedata.normalize("NFKC", text).translate(_INVISIBLE).lower().replace("’", "'").replace("‘", "'")
    )
    text = text.translate(_HOMOGLYPHS)
    text = _DOTTED.sub(lambda m: re.sub(r"[.\-_*~]", "", m.group(0)), text)
    leet = _LEET if one_as == "i" else _LEET | str.maketrans({"1": one_as})
    text = _LEET_WORD.sub(lambda m: m.group(0).translate(leet), text)
    text = _SPACED.sub(lambda m: m.group(0).replace(" ", ""), text)
    text = _STRETCHED.sub(r"\1", text)
    if substitutions:
        text = _phrases(tuple(substitutions)).sub(lambda m: substitutions[m.group(1)], text)
    return text


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

    @property
    def plain(self) -> str:
        return self.as_written or self.text


def split_units(text: str, group: re.Pattern[str]) -> list[Unit]:
    units: list[Unit] = []
    last_group: str | None = None
    for raw in _UNIT_END.split(text):
        raw = raw.strip()
        if not raw:
            continue
        resolved = _PRONOUN.sub(last_group, raw) if last_group and not group.search(raw) else raw
        named = [m.group(0) for m in group.finditer(raw)]
        if named:
            last_group = named[-1]
        quotes = tuple(a or b for a, b in _QUOTE.findall(resolved))
        outside = _QUOTE.sub(" ", resolved) if quotes else resolved
        units.append(Unit(resolved, " ".join(outside.split()), quotes, raw))
    return units


_WORD = re.compile(r"[a-z]{3,}")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


class Speller:
    """Undoes a one-letter slip in a harm word ("vermn", "kil" -> "vermin", "kill") and a dropped space
    next to one ("detestwomen"), the spelling variations functional hate-speech tests use.

    Only words no dictionary knows are touched, and only towards the harm vocabulary (``targets``), when
    exactly one harm word is one edit away: "skill", "pkill" and typos of ordinary words stay as written.
    """

    def __init__(
        self, known: frozenset[str], targets: frozenset[str], keep: re.Pattern[str] | None = None
    ) -> None:
        self._known = known | targets
        self._targets = targets
        self._keep = keep  # words never corrected: a group's name or a slur is meant as written ("fag")

    def __call__(self, text: str) -> str:
        return _WORD.sub(lambda m: self._correct(m.group(0)), text)

    @functools.lru_cache(maxsize=8192)  # noqa: B019 - one speller per rails config, kept for the process
    def _correct(self, word: str) -> str:
        if word in self._known or (self._keep is not None and self._keep.fullmatch(word)):
            return word
        candidates = _one_edit(word) & self._targets
        if len(candidates) == 1:
            return candidates.pop()
        for cut in range(2, len(word) - 1):
            head, tail = word[:cut], word[cut:]
            if (
                head in self._known
                and tail in self._known
                and (head in self._targets or tail in self._targets)
            ):
                return f"{head} {tail}"
        return word


def _one_edit(word: str) -> set[str]:
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deletes = {a + b[1:] for a, b in splits if b}
    swaps = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    replaces = {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
    inserts = {a + c + b for a, b in splits for c in _LETTERS}
    return deletes | swaps | replaces | inserts
