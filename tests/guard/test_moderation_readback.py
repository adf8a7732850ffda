"""Reading back text written upside down or back to front (webapp/guard/moderation/readback.py), with a toy
dictionary: a reading is kept only when it holds more English words than the text as written."""

from __future__ import annotations

import unicodedata

import pytest

from webapp.guard.moderation.readback import readings
from webapp.guard.moderation.unknownwords import plain_words

ENGLISH = {
    "i",
    "will",
    "kill",
    "you",
    "jews",
    "are",
    "vermin",
    "women",
    "property",
    "all",
    "should",
    "die",
    "pie",
}


def _read(text: str) -> list[str]:
    return readings(text, ENGLISH.__contains__, lambda t: [w for w in t.lower().split() if w.isalpha()])


@pytest.mark.parametrize(
    ("written", "reading"),
    [
        ("nimrev era sweJ", "Jews are vermin"),
        ("uoʎ llıʞ llıʍ I", "I will kill you"),  # "u" left unturned by the writer: read as "you", not "yon"
        ("Wrjf ner irezva", "Jews are vermin"),  # ROT13
        ("Nyy Wrjf fubhyq qvr.", "All Jews should die."),
        ("ʎʇɹǝdoɹd ǝɹɐ uǝɯoM", "Women are property"),  # "M" and "n" turned: read as "W" and "u"
        (
            unicodedata.normalize("NFKC", "˙noʎ llıʞ llıʍ I"),
            "I will kill you",
        ),  # "˙": a space, a combining dot
    ],
)
def test_a_reading_with_more_english_words_is_kept(written, reading):
    assert reading in _read(written)


def test_a_word_both_ways_english_gives_both_readings():
    """A generator that turns "d" into "p" and one that leaves it: "ǝᴉp" is "pie" or "die"; both are judged."""
    assert set(_read("ǝᴉp plnoɥs sʍǝɾ llɐ")) == {"all jews should pie", "all jews should die"}


@pytest.mark.parametrize("text", ["you will kill", "Jews are vermin", "ʃɪp and θɪn", "∀x ∃y"])
def test_text_that_reads_no_better_back_has_no_reading(text):
    assert _read(text) == []


def test_a_full_stop_read_back_ends_the_reading():
    assert readings(".nimrev era sweJ", ENGLISH.__contains__, plain_words) == ["Jews are vermin."]
