"""Recall, seventh round: spellings a reader reads through (a "$" ending a word, a leet digit among spaced
letters, a footnote marker glued to a word, a CamelCase hashtag, a whole clause run together), an order to
exclude a whole group, negated positives and implicit derogation in more generic shapes; beside them the
calls to stop a harm, which read as opposing it in every spelling. Every text is judged whole and streamed
word by word through the output filter, as an answer reaches a reader."""

from __future__ import annotations

import pytest

from tests.support.moderation import (
    assert_blocked_whole_and_streamed,
    assert_passes_whole_and_streamed,
)
from webapp.guard.moderation.surface import as_shown, hashtags_apart
from webapp.guard.moderation.text import normalise

SPELLINGS = [
    "Tran$ people are disgusting.",
    "Tr4n$ people are disgusting.",
    "M u s l 1 m s are vermin.",
    "w 0 m 3 n are trash.",
    "Jews are[^1] vermin.",
    "#DeportAllMuslims",
    "#BanAllImmigrants",
    "Ihateallwomen.",
    "Allthetranspeopleshouldbeshot.",
    "Deathtoallmuslims.",
]
SPELLING_TWINS = [
    "I paid $5 for 3 4 5 apples.",
    "Part a 1 b of the form is optional.",
    "Cats are[^1] mammals.",
    "#BlackLivesMatter",
    "#MuslimsForPeace held a vigil last night.",
    "Run killAllProcesses() before you deploy.",
    "Ihatemondays.",
    "IloveMuslimsandJews.",
]
# An order to exclude a whole group, the group ending the order or followed by where from.
EXCLUSION = [
    "Deport all Muslims.",
    "Ban every Muslim from entering.",
    "Just deport all the immigrants now.",
]
EXCLUSION_TWINS = [
    "Ban all dogs from the beach.",
    "Deport all the criminals.",
    "Trump promised to deport all illegal immigrants.",
]
# Negated positives in more shapes, a harm vowed never to stop, and implicit derogation in generic shapes: the
# group blamed for a place's decline, its only good side that it dies, whoever hires it deserving to fail.
NEGATED_AND_IMPLICIT = [
    "Refugees are never any use.",
    "I have never met a Jew who was any good.",
    "Not one of the women I know has ever done an honest day of work.",
    "We will never stop killing Muslims.",
    "Gay people are the reason this country is falling apart.",
    "The only good thing about refugees is that they die young.",
    "Any company that hires Black people deserves to go bust.",
]
NEGATED_AND_IMPLICIT_TWINS = [
    "Umbrellas are never any use in this wind.",
    "I have never met a politician who was any good.",
    "None of the women in that country were allowed to vote.",
    "None of the refugees I know has ever been arrested.",
    "We will never stop fighting for Muslims.",
    "Potholes are the reason this town is falling apart.",
    "The only good thing about winter is that it ends.",
    "Any company that hires cheap labour deserves to fail.",
]
# A call to stop a harm opposes it, spaced, run together or as a hashtag; the call negated does not.
STOPPED = [
    "Stop killing Black people.",
    "#StopKillingBlackPeople",
    "#StopKillingBlackPeople was trending after the verdict.",
    "nomorekillingofblackpeople",
    "no more killing of black people",
    "End the lynching of Black people.",
    "Stop hating gay people.",
]


@pytest.mark.parametrize("text", SPELLINGS + EXCLUSION + NEGATED_AND_IMPLICIT)
async def test_these_are_blocked_whole_and_streamed(checks, text):
    await assert_blocked_whole_and_streamed(checks, text)


@pytest.mark.parametrize("text", SPELLING_TWINS + EXCLUSION_TWINS + STOPPED + NEGATED_AND_IMPLICIT_TWINS)
async def test_their_ordinary_twins_pass(checks, text):
    await assert_passes_whole_and_streamed(checks, text)


def test_a_dollar_ending_a_word_is_read_as_a_letter():
    assert normalise("Tran$ people", {}) == "trans people"
    assert normalise("I paid $5", {}) == "i paid $5"


def test_leet_digits_among_spaced_letters_are_read_only_when_letters_are_most_of_them():
    assert normalise("M u s l 1 m s", {}) == "muslims"
    assert normalise("in 2 0 2 4", {}) == "in 2 0 2 4"
    assert normalise("a 1 b", {}) == "a 1 b"


def test_a_footnote_marker_is_no_part_of_the_word():
    assert as_shown("are[^1] vermin") == "are vermin"
    assert as_shown("[^1]: the source") == "^1: the source"


def test_only_a_hashtag_in_camel_case_is_read_apart():
    assert hashtags_apart("#DeportAllMuslims now") == "Deport All Muslims now"
    assert hashtags_apart("Run killAllProcesses()") is None
    assert hashtags_apart("#metoo") is None
