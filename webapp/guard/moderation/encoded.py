"""Text encoded so that no reader sees words in it, decoded: base64 and hex ("SmV3cyBhcmUgdmVybWlu"), and letters
masked by symbols the leetspeak map does not hold ("J€w$ @r€ v€rm!n").

A model asked to "answer in base64" writes hate every tier passes: the rules see one token of letters and
digits, the language gate sees code. A person (or the next model) decodes it at once. So a token that decodes
to text is read as that text, and the rules judge the reading beside the original, as they judge text read
back from upside down (readback.py). Hashes, UUIDs, hex colours and base64 images decode to bytes that are no
text, and give no reading: ordinary code costs one regex search per unit and nothing else.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable

# Long enough that a word or an identifier is rarely one; base64 of 12 letters holds 9 bytes, two short words.
_BASE64 = re.compile(r"(?<![\w+/=-])[A-Za-z0-9+/_-]{12,}={0,2}(?![\w+/=-])")
_HEX = re.compile(r"(?<!\w)(?:0x)?((?:[0-9a-fA-F]{2}){8,})(?!\w)")
# A symbol standing for a letter that the leetspeak map lacks (it reads "@" and "$"): "v€rm!n", "€vil", "J€". Not
# "(", "+" or "|" between letters ("friend(s)", "a+b"), nor "!" at a word's end: ordinary text writes those.
_MASKED = re.compile(r"(?<=[^\W\d_])[€£!¢¥](?=[^\W\d_])|(?<=[^\W\d_])[€£](?!\w)|(?<!\w)[€£](?=[^\W\d_])")
_UNMASKED = str.maketrans({"€": "e", "£": "e", "!": "i", "|": "l", "(": "c", "¢": "c", "¥": "y", "+": "t",
                           "@": "a", "$": "s", "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t"})  # fmt: skip
# The symbols ``_MASKED`` finds: without one, its look-arounds need not be tried at every character.
_MASK_SIGN = re.compile(r"[€£!¢¥]")
_MASKED_WORD = re.compile(r"[\w€£!|(¢¥+@$]+")
_PRINTABLE = re.compile(r"[\t\n\r\x20-\x7e]+")
_MIN_TEXT_SHARE = 0.95  # of decoded characters printable: binary that happens to hold letters is no text
# A token's first this many characters are decoded: a streamed answer's growing token is decoded again at each
# check, so a megabyte of base64 text must not be read whole every time (hate after 3 KB of it is not read).
MAX_TOKEN_CHARS = 4096


def decodings(unit: str, english: Callable[[str], bool], words: Callable[[str], list[str]]) -> list[str]:
    """The unit's encoded tokens decoded, and the unit with its masked letters unmasked: each reading whose
    words are mostly English (``english`` of each of ``words``), the rest no reading."""
    found = [_text(raw) for raw in _decoded_tokens(unit)]
    if _MASK_SIGN.search(unit) and _MASKED.search(unit):
        found.append(_MASKED_WORD.sub(lambda m: _unmask(m.group(0)), unit))
    kept: list[str] = []
    for reading in found:
        if reading is None or reading in kept:
            continue
        listed = words(reading)
        if len(listed) >= 2 and 2 * sum(map(english, listed)) > len(listed):
            kept.append(reading)
    return kept


def _decoded_tokens(unit: str) -> list[bytes]:
    decoded = []
    for match in _HEX.finditer(unit):
        decoded.append(bytes.fromhex(match.group(1)[:MAX_TOKEN_CHARS]))
    for match in _BASE64.finditer(unit):
        token = match.group(0)[:MAX_TOKEN_CHARS]
        if token.isalpha() and (token.islower() or token.isupper()):
            continue  # a long word in one case is a word ("antidisestablishment"); base64 mixes cases
        raw = _base64(token)
        if raw is not None:
            decoded.append(raw)
    return decoded


def _base64(token: str) -> bytes | None:
    padded = token.rstrip("=")
    padded += "=" * (-len(padded) % 4)
    try:
        if "-" in token or "_" in token:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None


def _text(raw: bytes) -> str | None:
    """The bytes as text if they are text (UTF-8, nearly all printable), else None."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(len(m) for m in _PRINTABLE.findall(text)) + sum(
        not c.isascii() and c.isprintable() for c in text
    )
    return text if text and printable >= _MIN_TEXT_SHARE * len(text) else None


def _unmask(word: str) -> str:
    """A masked word with its symbols and digits read as the letters they stand for (an "!" ending it is
    punctuation)."""
    if not _MASKED.search(word):
        return word
    core = word.rstrip("!")
    return core.translate(_UNMASKED) + word[len(core) :]
