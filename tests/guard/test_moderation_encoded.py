"""Decoding text no reader sees words in (webapp/guard/moderation/encoded.py), with a toy dictionary: a decoding
is kept only when most of its words are English."""

from __future__ import annotations

import base64

import pytest

from webapp.guard.moderation.encoded import MAX_TOKEN_CHARS, decodings

ENGLISH = {"jews", "are", "vermin", "the", "evil", "must", "die", "hello", "how", "you", "decode", "this"}


def _decode(text: str) -> list[str]:
    return decodings(text, ENGLISH.__contains__, lambda t: [w for w in t.lower().split() if w.isalpha()])


def _b64(text: str, *, url: bool = False) -> str:
    encode = base64.urlsafe_b64encode if url else base64.b64encode
    return encode(text.encode()).decode()


@pytest.mark.parametrize(
    ("written", "reading"),
    [
        (_b64("Jews are vermin"), "Jews are vermin"),
        (_b64("Jews are vermin").rstrip("="), "Jews are vermin"),  # padding left off
        (f"Decode this: {_b64('the evil Jews must die')}", "the evil Jews must die"),
        (_b64("Jews are vermin ??? ~~~ >>>", url=True), "Jews are vermin ??? ~~~ >>>"),  # URL-safe alphabet
        (b"Jews are vermin".hex(), "Jews are vermin"),
        ("0x" + b"Jews are vermin".hex().upper(), "Jews are vermin"),
        ("J€w$ @r€ v€rm!n", "Jews are vermin"),
        ("Th€ €vil J€ws must d!e!", "The evil Jews must die!"),
    ],
)
def test_an_encoding_of_english_is_read(written, reading):
    assert reading in _decode(written)


@pytest.mark.parametrize(
    "text",
    [
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",  # a hash: bytes, no text
        "123e4567-e89b-12d3-a456-426614174000",
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
        "#ff8800 and #333",
        "0xDEADBEEF",
        "ThisIsALongCamelCaseIdentifier antidisestablishment",
        _b64("zxqv wlpt ghrk"),  # text, but no English words
        "The price is 5€ or £4; wow! friend(s) a+b",  # a symbol beside a digit, "!" ending a word
        "Jews are vermin",  # nothing encoded: nothing to decode
    ],
)
def test_what_decodes_to_no_english_text_gives_no_reading(text):
    assert _decode(text) == []


def test_a_long_token_is_decoded_from_its_start_only():
    """A growing token is decoded again at every streamed check: only its first MAX_TOKEN_CHARS characters."""
    filler = "hello how are you " * (MAX_TOKEN_CHARS // 16)
    early, late = _b64("Jews are vermin " + filler), _b64(filler + "Jews are vermin")
    assert len(early) > MAX_TOKEN_CHARS and len(late) > MAX_TOKEN_CHARS
    assert _decode(early)[0].startswith("Jews are vermin hello")
    assert all("Jews" not in reading for reading in _decode(late))
    assert _decode(late)[0].startswith("hello how are you")
