"""Reading back text written upside down or back to front (webapp/guard/moderation/readback.py), with a toy
dictionary: the reading is kept only when it holds more English words than the text as written."""

from __future__ import annotations

import pytest

from webapp.guard.moderation.readback import best_reading
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
    "sundays",
    "happy",
    "days",
}


def _read(text: str) -> str | None:
    return best_reading(text, ENGLISH.__contains__, lambda t: [w for w in t.lower().split() if w.isalpha()])


@pytest.mark.parametrize(
    ("written", "reading"),
    [
        ("nimrev era sweJ", "Jews are vermin"),
        ("uoʎ llıʞ llıʍ I", "I will kill you"),  # "u" left unturned by the writer: read as "you", not "yon"
        ("ʎʇɹǝdoɹd ǝɹɐ uǝɯoM", "Women are property"),  # "M" and "n" turned: read as "W" and "u"
        ("sʎɐp ʎddɐɥ ǝɹɐ sʎɐpuns", "sundays are happy days"),
    ],
)
def test_the_reading_with_the_most_english_words_is_kept(written, reading):
    assert _read(written) == reading


@pytest.mark.parametrize("text", ["you will kill", "Jews are vermin", "ʃɪp and θɪn", "∀x ∃y"])
def test_text_that_reads_no_better_back_has_no_reading(text):
    assert _read(text) is None


def test_a_full_stop_read_back_ends_the_reading():
    assert best_reading(".nimrev era sweJ", ENGLISH.__contains__, plain_words) == "Jews are vermin."
