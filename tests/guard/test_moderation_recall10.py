"""Recall, tenth round: the semantic tier's group-consistent reading (groupswap.py) now also finds hate, so a
claim it judges hateful about one group is judged so about any other ("Lesbians only know how to lie and
cheat" passed while the same about Sikhs was blocked); and a group said to spread through a place like a
disease, pest or rot is blocked with words between ("... spreading across the city like a rash"). Beside
each, the same words about no group, history told with "once", refusals of the claim, what a group deserves,
negation and counter-speech, which must still pass. Every text is judged whole and streamed."""

from __future__ import annotations

import pytest

from tests.support.moderation import (
    assert_blocked_whole_and_streamed,
    assert_passes_whole_and_streamed,
)

# Each passed on 3a24d5a, this branch's base (the same claims about Sikhs or Nigerians were blocked there).
HATEFUL = [
    "Lesbians only know how to lie and cheat.",
    "Women only know how to lie and cheat.",
    "Roma lives are worthless and do not matter.",
    "Blind people are spreading across the city like a rash.",
    "Lesbians spread through the suburbs like mould.",
    "Women spread through the company like rot.",
]
# The first two and the last of the group texts here were blocked once "hate" readings were kept without
# the history, refusal and deserved-good words in the swap's `unless`.
LEGITIMATE = [
    "Laws once barred gay people from owning property.",
    "I refuse to think of disabled people as inferior.",
    "Politicians only know how to lie and cheat.",
    "My ex only knows how to lie and cheat.",
    "Cheaters only know how to lie, the detective said.",
    "Women who report rape deserve to be believed.",
    "Damp creeps into old houses like a slow disease.",
    "Mould spreads across the wall like a rash.",
    "Kindness from Sikhs spread through the town like sunshine.",
    "Saying Nigerians spread like a disease is racist.",
    "Sikhs are not spreading like a rash, that is a lie.",
    "The news spread across the city like wildfire.",
]


@pytest.mark.parametrize("text", HATEFUL)
async def test_hate_judged_of_one_group_is_judged_of_any(checks, text):
    await assert_blocked_whole_and_streamed(checks, text)


@pytest.mark.parametrize("text", LEGITIMATE)
async def test_the_same_words_of_no_group_history_and_refusals_pass(checks, text):
    await assert_passes_whole_and_streamed(checks, text)
