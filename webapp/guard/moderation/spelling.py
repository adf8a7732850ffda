"""Spelling repair towards the harm vocabulary: the evasions functional hate-speech tests use (a dropped
letter, two letters swapped, a missing space) undone before any rule or embedding judges the text.

Two readings come out of it:
- the repaired text (``Speller.__call__``): only words no dictionary knows are touched ("wmen", "vermn",
  "jwes", "muslimsare", "ihatewomen"), towards the harm vocabulary; everything else stays as written;
- an alternative reading (``Speller.alternative``) for words that ARE in the dictionary but are one
  dropped or swapped letter from a core harm word ("hat women", "the omen"): too risky to rewrite for
  every tier, so only the category rules judge it, and they still need the whole structure of a hateful
  statement ("I hat women" is read as "I hate women"; "nice hat" stays a hat).

Candidates are ranked by how typists and evaders slip: a missing letter or two swapped letters first, a
wrong or extra letter after; among those, group names and core harm words before other words of harmful
sentences. A tie that cannot be broken leaves the word as written. A wrong letter is read as a slip only in
a word of five letters or more: a short unknown word is one wrong letter from too much ("pid", "pkg": "pig").

A word a rule blocks on its own (a slur) needs more evidence than the others, since nothing else in the
sentence has to agree once it is read: it is reached only by a dropped or swapped letter, never by a wrong
or extra one ("cron" and "conn" are no "coon", "dyne" no "dyke"), and a dictionary word is never misread as
one ("Niger", "Indo-Pak").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable

_WORD = re.compile(r"[a-z]{3,}")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
# The only words under three letters a glued-together token may hold ("ihatewomen", "muslimsareevil"):
# without this, unknown words fall apart into dictionary fragments ("fatsest" -> "fat se st").
_SHORT_PIECES = frozenset(
    {
        "i",
        "a",
        "an",
        "to",
        "of",
        "in",
        "is",
        "be",
        "we",
        "us",
        "me",
        "my",
        "so",
        "at",
        "on",
        "by",
        "or",
        "no",
        "do",
        "go",
        "up",
    }
)
MAX_PIECES = 3
MAX_GLUED_WORDS = 8  # words a whole clause run together may be read as
_LONGEST_PIECE = 20
# Endings a known word takes that the dictionary may not list: with one, a word is that word, never a slur's slip
# ("cons" is no "coons", "chins" no "chinks", "dyes" no "dykes").
REGULAR_ENDINGS = ("s", "es", "ed", "d", "ing", "er", "ers", "ly")
MIN_WRONG_LETTER = 5  # letters a word needs before a wrong one in it is read as a slip
# A contraction run into the next word ("don'tbelong", "can'tbe", "i'dnever"): n't, 'd, 's, 'm, 'll, 're, 've.
_GLUED_CONTRACTION = re.compile(r"(?<=[a-z]')(t|d|s|m|ll|re|ve)([a-z]{2,})\b")


class Speller:
    """``known``: dictionary words; ``targets``: the words of harmful examples; ``core``: the group names
    and harm words of the rules' word lists; ``misreadable``: the core words a dictionary word may be read
    as; ``standalone``: the core words a rule blocks on their own."""

    def __init__(
        self,
        known: frozenset[str],
        targets: frozenset[str],
        core: Iterable[str] = frozenset(),
        *,
        misreadable: Iterable[str] = frozenset(),
        standalone: Iterable[str] = frozenset(),
        keep: re.Pattern[str] | None = None,
    ) -> None:
        self._known = known | targets
        self._targets = targets
        self._core = frozenset(core)
        # Core words a rule blocks alone (slurs): reached by a slip only, never by a misreading.
        self._standalone = frozenset(standalone)
        # What a dictionary word may be read as: group names and words of contempt, not violence ("I bet
        # you" must not become "I beat you").
        self._misreadable = frozenset(misreadable) - self._standalone
        self._keep = keep  # words never corrected: a group's name or a slur is meant as written ("fag")

    def __call__(self, text: str) -> str:
        text = _GLUED_CONTRACTION.sub(self._unglue_contraction, text)
        return _WORD.sub(lambda m: self._correct(m.group(0)), text)

    def knows(self, word: str, *, slips: bool = True) -> bool:
        """Whether a lower-case word is one the speller reads: a known word, or (``slips``) a slip or glued run
        of them ("imigrants", "womenare"). The language gate asks it whether a word is English at all."""
        return word in self._known or slips and self._correct(word) != word

    def _unglue_contraction(self, match: re.Match[str]) -> str:
        """A contraction glued to the next word ("don'tbelong", "i'dnever"): the space put back when what
        follows the contraction is a word and the whole is none."""
        ending, rest = match.group(1), match.group(2)
        if ending + rest in self._known or rest not in self._known:
            return match.group(0)
        return f"{ending} {rest}"

    def rejoined(self, text: str) -> str | None:
        """The text with a space typed inside a harm word taken out ("wo men", "dis gusting", "ver min",
        "Je ws"), or None: two neighbouring pieces whose concatenation is a group name or a word the rules
        list, and that are not two words of their own read together ("use less")."""
        pieces = _PIECE.findall(text)
        out: list[str] = []
        i = 0
        while i < len(pieces):
            if i + 2 < len(pieces) and pieces[i + 1] == " " and self._spaced_word(pieces[i], pieces[i + 2]):
                out.append(pieces[i] + pieces[i + 2])
                i += 3
            else:
                out.append(pieces[i])
                i += 1
        reading = "".join(out)
        return self(reading) if reading != text else None

    def _spaced_word(self, head: str, tail: str) -> bool:
        whole = head + tail
        if whole not in self._core or f"{head} {tail}" in _SPACED_PHRASES:
            return False
        # A slur is blocked alone, so two words of its own never make one ("a wet back", "towel head").
        return whole not in self._standalone or head not in self._known or tail not in self._known

    def alternative(self, text: str) -> str | None:
        """The text with dictionary words read as the core harm word they are one slip from, or as the two
        words a dropped space made them ("x area burden": "are a"), or None."""
        changed = False

        def read(match: re.Match[str]) -> str:
            nonlocal changed
            word = match.group(0)
            meant = _GLUED_DICTIONARY_WORDS.get(word) or self._misread(word)
            changed |= meant != word
            return meant

        reading = _WORD.sub(read, text)
        return reading if changed else None

    @functools.lru_cache(maxsize=8192)  # noqa: B019 - one speller per rails config, kept for the process
    def _misread(self, word: str) -> str:
        if (
            word not in self._known
            or word in self._misreadable
            or word in self._core
            or word in _EVERYDAY_WORDS
        ):
            return word
        slips = _slips(word) & self._misreadable
        return slips.pop() if len(slips) == 1 else word

    @functools.lru_cache(maxsize=8192)  # noqa: B019
    def _correct(self, word: str) -> str:
        if word in self._known or (self._keep is not None and self._keep.fullmatch(word)):
            return word
        slips, others = _slips(word), _others(word)
        if self._regular_form(word):  # "cons", "chins", "dyes": a known word's plural is no slur's slip
            slips -= self._standalone
        # A wrong or extra letter is weaker evidence ("nicer" is not a slip of "nice"): only towards the core,
        # and only in a word long enough that the rest still names it ("pid" and "pkg" are no "pig").
        if len(word) < MIN_WRONG_LETTER:
            others = set()
        for best in (self._best(slips), self._best(others & (self._core - self._standalone))):
            if best is not None:
                return best
        pieces = self._segment(word)
        return " ".join(pieces) if pieces else word

    def _regular_form(self, word: str) -> bool:
        """Whether ``word`` is a known word with a regular ending the dictionary does not list."""
        return has_ending_of(word, REGULAR_ENDINGS, self._known.__contains__)

    def _best(self, candidates: set[str]) -> str | None:
        """A core word among the candidates, else the one target word; None if targets tie."""
        found = candidates & self._core
        if found:  # "womn": woman or women, either is the group the rules need
            return min(found)
        found = candidates & self._targets
        return found.pop() if len(found) == 1 else None

    def _segment(self, word: str) -> list[str] | None:
        """The fewest known words (at most three) that make up ``word``, one of them a harm word; else a
        group's name or a function word glued to one other dictionary word ("womenlack", "tosteal")."""
        for count in range(2, MAX_PIECES + 1):
            for pieces in self._splits(word, count):
                # Glued words in harmful text are words of harmful text: "muslimsare", not "rac coons".
                usual = all(p in self._targets or p in self._core or p in _SHORT_PIECES for p in pieces)
                if usual and any(p in self._core or p in self._targets for p in pieces):
                    return pieces
        # A group's name next to a whole word of four letters or more ("womenlack"): the rules still need a
        # hateful statement around it ("hatecoffee" stays whole). The longest name wins ("immigrants lack",
        # not "immigrant slack").
        pairs = list(self._splits(word, 2))
        glued = [
            (max(len(p) for p in pair if self._names_group(p)), pair)
            for pair in pairs
            if any(self._names_group(p) for p in pair) and min(len(p) for p in pair) > 3
        ]
        # ...or a function word run into a whole word ("tosteal", "arelower", "thandirt", "forcheap").
        glued += [(len(max(pair, key=len)), pair) for pair in pairs if _function_word_glued(pair)]
        if glued:
            return list(max(glued)[1])
        return self._sentence_glued(word)

    def _sentence_glued(self, word: str) -> list[str] | None:
        """A whole clause with every space taken out ("allthewomenshouldbeshot", "deathtowomen"): the
        cheapest reading as at most ``MAX_GLUED_WORDS`` words, a word of harmful text costing less than any
        other dictionary word (which needs four letters: short ones would make fragments of anything), with
        a group name or harm word among them (a group name, if it holds such another word). Found by
        dynamic programming: enumerating splits grows too fast past three pieces. A call to stop a harm
        read this way ("nomorekillingofblackpeople") is judged as the spaced call is: as opposing it."""
        usual = self._targets | self._core | _SHORT_PIECES
        best: list[tuple[float, list[str]] | None] = [(0.0, [])] + [None] * len(word)
        for end in range(1, len(word) + 1):
            for start in range(max(0, end - _LONGEST_PIECE), end):
                head, piece = best[start], word[start:end]
                cost = _piece_cost(piece, usual, self._known)
                if head is None or cost is None or len(head[1]) >= MAX_GLUED_WORDS:
                    continue
                reading = (head[0] + cost, [*head[1], piece])
                if best[end] is None or reading[0] < best[end][0]:  # type: ignore[index]
                    best[end] = reading
        found = best[-1]
        if found is None or len(found[1]) < 2 or not any(p in self._core for p in found[1]):
            return None
        # a dictionary word among them is weaker evidence: then the clause must name a group
        if found[0] > len(found[1]) and not any(self._names_group(p) for p in found[1]):
            return None
        return found[1]

    def _names_group(self, word: str) -> bool:
        return self._keep is not None and word in self._core and bool(self._keep.fullmatch(word))

    def _splits(self, word: str, count: int) -> Iterable[list[str]]:
        if count == 1:
            if word in self._known and (len(word) > 2 or word in _SHORT_PIECES):
                yield [word]
            return
        for cut in range(1, len(word)):
            head = word[:cut]
            if head in self._known and (len(head) > 2 or head in _SHORT_PIECES):
                for rest in self._splits(word[cut:], count - 1):
                    yield [head, *rest]


# Words and what lies between them.
_PIECE = re.compile(r"[a-z]+|[^a-z]+")
# Pairs of words that spell a harm word together and mean something else apart.
# Pairs of words that spell a harm word together and mean something else apart ("I will be at your house"
# is no beating).
_SPACED_PHRASES = frozenset(
    "be at|be head|use less|care less|hope less|point less|worth less|count less|home less|any more|some one"
    "|re fuse|ref use|live stock|proper ty|back ward|back wards|thin gs|her ds|in sane".split("|")
)
# Dictionary words that a dropped space makes out of a statement's own words: read apart by the rules only.
_GLUED_DICTIONARY_WORDS = {"area": "are a"}
# Words too common in everyday prose to be read as a slip of a group's name or of "hate": "Put the chicken back
# in the oven" read as "... black in the oven" was a threat to the rules, "We ate Mexican food" hate.
_EVERYDAY_WORDS = frozenset({"back", "backs", "lack", "lacks", "bind", "ate", "naive"})
# Short words a sentence cannot do without, which evaders run into the next or the last word.
_FUNCTION_WORDS = frozenset(
    "a an the to for of at by in on as is are be am was were than then with from like until and or not no "
    "all any so too very only just more most less their them they we you".split()
)


def _piece_cost(piece: str, usual: frozenset[str], known: frozenset[str]) -> float | None:
    """What reading ``piece`` as a word of a glued clause costs: a word of harmful text 1, another dictionary
    word of four letters or more 1.5, anything else cannot be read."""
    if piece in usual and (len(piece) > 2 or piece in _SHORT_PIECES):
        return 1.0
    return 1.5 if len(piece) > 3 and piece in known else None


def _function_word_glued(pair: list[str]) -> bool:
    """One piece a function word, the other a word of four letters or more that is none."""
    short = [p for p in pair if p in _FUNCTION_WORDS]
    return len(short) == 1 and all(len(p) > 3 for p in pair if p not in _FUNCTION_WORDS)


def has_ending_of(word: str, endings: Iterable[str], is_word: Callable[[str], bool]) -> bool:
    """Whether ``word`` is a word (``is_word``) with one of ``endings`` added: "vib(ing)" vibe, "supremac(ist)"
    supremacy, "spamm(ers)" spam (a stem of three letters at least)."""
    return any(
        word.endswith(ending) and any(map(is_word, _stems(word[: -len(ending)])))
        for ending in endings
        if len(word) - len(ending) >= 3
    )


def _stems(stem: str) -> tuple[str, ...]:
    """What a word stripped of its ending may have been."""
    doubled = (stem[:-1],) if stem[-1] == stem[-2] else ()
    return (stem, stem + "e", stem + "y", *doubled)


def _slips(word: str) -> set[str]:
    """Words this one could be with a letter it dropped put back, or two neighbours it swapped undone."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    swaps = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    inserts = {a + c + b for a, b in splits for c in _LETTERS}
    return swaps | inserts


def _others(word: str) -> set[str]:
    """...or with a wrong letter replaced, or an extra one taken out."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deletes = {a + b[1:] for a, b in splits if b}
    replaces = {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
    return deletes | replaces
