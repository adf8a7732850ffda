"""Which script a unit's letters are written in, for the language gate (language.py): Unicode names, counted per
word, so a Latin word with one Cyrillic look-alike inside stays Latin (an evasion the moderator reads as Latin,
not Russian), and which letters are accents (a language English is not)."""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter

UNSPACED_SCRIPTS = frozenset({"CJK", "HIRAGANA", "KATAKANA", "THAI"})
KANA = frozenset({"HIRAGANA", "KATAKANA"})
_SAME_SCRIPT = {"HIRAGANA": "CJK", "KATAKANA": "CJK"}


def scripts(unit: str) -> tuple[Counter[str], int]:
    """(letters per non-Latin script, words of two letters or more in a script written with spaces), counting
    only words written in one non-Latin script: a Latin word with a Cyrillic look-alike in it is an evasion
    the moderator reads as Latin, not Russian. Vowel signs (Devanagari, Arabic, Thai marks) are part of their
    word."""
    counts: Counter[str] = Counter()
    words = 0
    for token in unit.split():
        letters = [c for c in token if c.isalpha() or unicodedata.category(c).startswith("M")]
        kinds = {_SAME_SCRIPT.get(k, k) for k in (script_of(c) for c in letters if c.isalpha())}
        if len(kinds) != 1 or "LATIN" in kinds:
            continue
        (kind,) = kinds
        if kind == "CJK":  # Japanese writes kanji and kana in one word: the kana tell it from Chinese
            counts.update("HIRAGANA" if script_of(c) in KANA else "CJK" for c in letters)
            continue
        counts[kind] += len(letters)
        words += len(letters) >= 2 and kind not in UNSPACED_SCRIPTS
    return counts, words


def accented_letter(char: str) -> bool:
    """A Latin letter with an accent ("é", "ñ", "ấ"): one that decomposes into a letter and a mark. Upside-down
    and phonetic letters ("ɐ", "ʎ", "ǝ") and fillers that look like spaces are no language's accents."""
    return not char.isascii() and char.isalpha() and unicodedata.decomposition(char) != ""


@functools.lru_cache(maxsize=4096)
def script_of(char: str) -> str:
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0] if name else "UNKNOWN"
