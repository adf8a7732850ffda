"""Text written so the rules cannot read it, read back: upside down ("uoʎ llıʞ llıʍ I") or back to front
("nimrev era sweJ.").

Both are English a person reads at a glance and the rules never do: every word is unknown to them. The
language gate asks for a reading only of a unit whose words are mostly no English word, and keeps it only when
the reading's words are English; the rules then judge the reading. Upside-down generators differ on the letters
that flip into other ASCII letters ("u" and "n", "d" and "p", "M" and "W"): each word is read both ways and the
way that gives an English word is kept.
"""

from __future__ import annotations

import re
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


def best_reading(unit: str, english: Callable[[str], bool], words: Callable[[str], list[str]]) -> str | None:
    """The unit read back to front, or turned the right way up when it holds an upside-down letter, whichever
    has more English words (``english`` of each of ``words``); None unless that is more than the unit as
    written has and most of the reading's words are English."""

    def score(text: str) -> int:
        return sum(map(english, words(text)))

    back = _LEADING_STOP.sub(r"\2\1", unit[::-1])  # ".nimrev" reads back as "vermin."
    found = [back]
    if any(c in _TURNED for c in unit):
        found.append(" ".join(_upright(w, lambda t: score(t) > 0) for w in back.split(" ")))
    best = max(found, key=score)
    count = len(words(best))
    return best if count and score(best) > score(unit) and 2 * score(best) > count else None


def _upright(word: str, is_english: Callable[[str], bool]) -> str:
    """The word turned back, its ASCII pairs flipped too ("suɯılsnW": "Muslims") unless only the word left as
    the generator wrote them is English ("uoʎ": "you", not "yon": generators differ on those pairs)."""
    turned = "".join(_TURNED.get(c, c) for c in word)
    flipped = "".join(_TURNED.get(c) or _SWAPPED.get(c, c) for c in word)
    return turned if is_english(turned) else flipped
