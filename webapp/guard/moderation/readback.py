"""Text written so the rules cannot read it, read back: upside down ("uoʎ llıʞ llıʍ I"), back to front
("nimrev era sweJ.") or in ROT13 ("Wrjf ner irezva.").

Both are English a person reads at a glance and the rules never do: every word is unknown to them. The
language gate asks for a reading only of a unit whose words are mostly no English word, and keeps it only when
the reading's words are English; the rules then judge the reading. Upside-down generators differ on the letters
that flip into other ASCII letters ("u" and "n", "d" and "p", "M" and "W"): each word is read both ways and the
way that gives an English word is kept.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Callable

_LEADING_STOP = re.compile(r"^(\W*)(.*?)$", re.DOTALL)

# An upside-down letter (or mark) -> the one it shows turned back; the ASCII pairs flip both ways.
_TURNED = {
    "ɐ": "a", "ɔ": "c", "ǝ": "e", "ə": "e", "ɟ": "f", "ƃ": "g", "ɓ": "g", "ɥ": "h", "ı": "i", "ᴉ": "i",
    "ɾ": "j", "ʞ": "k", "ן": "l", "ɯ": "m", "ɹ": "r", "ʇ": "t", "ʌ": "v", "ʍ": "w", "ʎ": "y",
    "∀": "A", "Ɔ": "C", "Ǝ": "E", "Ⅎ": "F", "⅁": "G", "ſ": "J", "˥": "L", "Ԁ": "P", "┴": "T", "∩": "U",
    "Λ": "V", "⅄": "Y", "˙": ".", "¿": "?", "¡": "!", "‾": "_",
}  # fmt: skip
_SWAPPED = dict(zip("undpbqMW,'", "nupdqbWM',", strict=True))


def readings(unit: str, english: Callable[[str], bool], words: Callable[[str], list[str]]) -> list[str]:
    """The unit in ROT13, read back to front, and turned the right way up when it holds an upside-down letter
    (once preferring each word as written, once with its ASCII pairs flipped: "ǝᴉp" is "pie" or "die", and every
    reading is judged); those with more English words (``english`` of each of ``words``) than the unit as
    written, most of their words English."""

    def score(text: str) -> int:
        return sum(map(english, words(text)))

    # a turned full stop "˙" is a space and a combining dot once normalised: the dot is no letter
    unit = "".join(c for c in unit if not unicodedata.combining(c))
    back = _LEADING_STOP.sub(r"\2\1", unit[::-1]).strip()  # ".nimrev" reads back as "vermin."
    found = [back]
    if unit.isascii():  # ROT13 turns ASCII letters only: "Psy są mądre." is Polish, not a cipher of English
        found.append(codecs.encode(unit, "rot_13"))
    if any(c in _TURNED for c in unit):
        is_english = lambda t: score(t) > 0  # noqa: E731
        found += [" ".join(_upright(w, is_english, flip) for w in back.split(" ")) for flip in (False, True)]
    written = score(unit)
    kept: list[str] = []
    for reading in found:
        count = len(words(reading))
        if count and score(reading) > written and 2 * score(reading) > count and reading not in kept:
            kept.append(reading)
    return kept


def _upright(word: str, is_english: Callable[[str], bool], flip: bool) -> str:
    """The word turned back; ``flip``: its ASCII pairs flipped too unless only the word as the generator left
    them is English ("suɯılsnW": "Muslims"; "uoʎ": "you", not "yon"); else the other way round."""
    turned = "".join(_TURNED.get(c, c) for c in word)
    flipped = "".join(_TURNED.get(c) or _SWAPPED.get(c, c) for c in word)
    first, second = (flipped, turned) if flip else (turned, flipped)
    return first if is_english(first) or not is_english(second) else second
