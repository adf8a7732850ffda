"""A group is one name however it is spelled out: "Chinese people" as well as "Chinese", "Kurdish people" as well
as "Kurds". The lexicon named most peoples by the bare adjective or plural only, so a rule reading "<group> are
..." missed "Chinese people are vermin", and it lacked Kurds, Mormons and older people altogether. Fixed once in
the lexicon, so every rule gains the names. Beside them, ordinary statements about the same groups must pass.
Every text is judged whole and streamed."""

from __future__ import annotations

import pytest

from tests.support.moderation import (
    assert_blocked_whole_and_streamed,
    assert_passes_whole_and_streamed,
)

# Each passed on main before the names were added.
HATEFUL = [
    "Chinese people are vermin.",
    "Mormons are subhuman.",
    "The elderly are parasites who should be put down.",
    "Kurds are a disease.",
    "Mormons are all liars and cheats.",
    "Pensioners are leeches on society.",
    "Kurdish people should be wiped out.",
    "Mormons are a cult of brainwashed freaks.",
    "Older people are disgusting.",
]

LEGITIMATE = [
    "Chinese people are wonderful neighbours.",
    "Chinese people celebrate the new year in February.",
    "Mormons do a lot of charity work.",
    "Mormons founded Salt Lake City.",
    "Old people have so much wisdom to share.",
    "The elderly need better care homes.",
    "Kurds have been persecuted for a century.",
    "Kurds live in Turkey, Iraq, Syria and Iran.",
    "Vietnamese people make great coffee.",
    "Pensioners are struggling with energy bills.",
    "Kurdish people are not vermin.",
    "Saying Mormons are subhuman is disgusting.",
    "Older people are more likely to get the flu.",
    "Old people should be protected from scams.",
]


@pytest.mark.parametrize("text", HATEFUL)
async def test_hate_about_a_group_by_its_full_or_newly_listed_name_is_blocked(checks, text):
    await assert_blocked_whole_and_streamed(checks, text)


@pytest.mark.parametrize("text", LEGITIMATE)
async def test_ordinary_statements_about_those_groups_pass(checks, text):
    await assert_passes_whole_and_streamed(checks, text)
