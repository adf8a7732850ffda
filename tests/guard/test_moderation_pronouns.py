"""Who "they" stands for in the sentence after a group is named (pronouns.py): the group where it is the
subject or the one the sentence is about, the people who say something where they are the subject."""

from __future__ import annotations

import re

import pytest

from tests.support.moderation import (
    MODERATION_CONFIG,
    assert_blocked_whole_and_streamed,
    assert_passes_whole_and_streamed,
)
from webapp.guard.moderation.config import ModerationConfig
from webapp.guard.moderation.pronouns import Antecedent, antecedent
from webapp.guard.moderation.text import split_units

GROUP = ModerationConfig.from_mapping(MODERATION_CONFIG).group


def last_unit(text: str) -> str:
    """The last sentence's reading (a clause or a second reading judged within it left out)."""
    return [u for u in split_units(text, GROUP) if u.within is None][-1].text


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("jews run the banks. they are vermin.", "jews are vermin."),
        ("i hate muslims. they're vermin.", "muslims are vermin."),
        ("i've met many immigrants. they are all parasites.", "immigrants are all parasites."),
        ("muslims say jews are evil. they are liars.", "muslims are liars."),
        ("people say it's hateful to want all immigrants deported. they are right.", "people are right."),
        ("critics of muslims say islam is violent. they are wrong.", "critics are wrong."),
        ("my parents always said jews were greedy. they were wrong.", "parents were wrong."),
        ("bigots keep saying gay people are a threat. they are cowards.", "bigots are cowards."),
        # an object stands for the group: the claim's insult said again
        (
            "people claim it's wrong to call hindus animals. i call them animals anyway.",
            "i call hindus animals anyway.",
        ),
        ("my boss said women are stupid. they're stupid.", "women are stupid."),  # one boss: no "they"
        # the next sentence only: then the group is the topic again
        (
            "people keep saying jews are not vermin. i disagree with them. they are vermin.",
            "jews are vermin.",
        ),
    ],
)
def test_they_stands_for_the_subject_of_a_report_else_for_the_group(text, read):
    assert last_unit(text) == read


@pytest.mark.parametrize(
    "sentence",
    [
        "this says jews are evil.",  # a singular subject: "they" is still the group
        "my uncle thinks muslims are lazy.",
        "everyone says immigrants are rapists.",
        "jews run the banks.",
        "why do people insist that black people are equal?",  # the speaker disputes the report
    ],
)
def test_a_subject_that_is_no_group_of_people_leaves_they_to_the_group(sentence):
    named = [m.group(0) for m in GROUP.finditer(sentence)]
    assert named and antecedent(sentence, GROUP) == Antecedent(named[-1], named[-1])


def test_a_sentence_that_names_no_group_has_no_antecedent():
    assert antecedent("people say the weather will turn.", re.compile(r"\bjews\b")) is None


@pytest.mark.parametrize(
    "text",
    [
        "Jews run the banks. They are vermin.",
        "Jews run the banks. They should all be shot.",
        "I've met many immigrants. They are all parasites.",
        "People say Jews run the banks. They are right.",  # assent to the report: the claim is the speaker's
        "Critics say Muslims are violent. They are right.",
        "Muslims say Jews are evil. They are vermin.",
    ],
)
async def test_hate_said_of_the_group_by_pronoun_is_blocked(checks, text):
    await assert_blocked_whole_and_streamed(checks, text)


@pytest.mark.parametrize(
    "text",
    [
        "People say it's hateful to want all immigrants deported. They are right.",
        "Critics of Muslims say Islam is violent. They are wrong.",
        "Racists claim Muslims are terrorists. They are wrong.",
        "Bigots keep saying gay people are a threat. They are cowards.",
    ],
)
async def test_a_verdict_on_the_people_who_said_it_is_no_claim_about_the_group(checks, text):
    await assert_passes_whole_and_streamed(checks, text)


@pytest.mark.parametrize(
    "text",
    [
        "People say Muslims are peaceful. They should all be shot.",
        "Critics say Jews are fine. They are vermin.",
        # an attribute fits both readings, and the rules take the group's (blocked before this reading too)
        "Many people believe Black people are less intelligent. They are ignorant.",
    ],
)
async def test_the_rules_also_read_they_as_the_group_after_a_report(checks, text):
    await assert_blocked_whole_and_streamed(checks, text)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # "every single one" after a group named as a question stands for the group
        ("trans women? freaks. every single one deserves a beating.", "trans women deserves a beating."),
        ("lesbians? every last one is a disgrace.", "lesbians is a disgrace."),
        # ...not "every single one of" something else
        (
            "i met the refugees. every single one of the tests passed.",
            "every single one of the tests passed.",
        ),
    ],
)
def test_every_single_one_stands_for_the_group_named_before(text, read):
    assert last_unit(text) == read
