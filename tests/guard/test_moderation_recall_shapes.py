"""Recall, third round: hate said without slurs, insults or threats, in the general shapes stereotyping speech
takes (a group ranked below others, blamed as the cause of ills, a misdeed called its habit or its nature, its
existence reduced to a menial purpose, fewer of it called better, a question whose answer is "nobody"), and
the ordinary sentences nearest to each shape, which pass. The rules alone are asked: these shapes must not
lean on the classifier."""

import re

import pytest

from tests.support.moderation import MODERATION_CONFIG as CONFIG
from tests.support.paths import RAILS_DIR
from webapp.guard.moderation import ModerationConfig, Moderator
from webapp.guard.moderation.spelling import Speller


@pytest.fixture(scope="module")
def rules_only() -> Moderator:
    return Moderator(
        ModerationConfig.from_mapping({**CONFIG, "semantic": {"enabled": False}}), rails_dir=RAILS_DIR
    )


@pytest.mark.parametrize(
    "text",
    [
        "Immigrants are lower than dirt.",  # ranked below
        "Gay people are less evolved than the rest of us.",
        "Women are beneath the rest of us.",
        "Muslims are to blame for everything wrong with this country.",  # blamed
        "Black people are responsible for most of the crime here.",
        "Trans people are the cause of all our problems.",
        "All immigrants do is complain and steal.",  # a misdeed as a habit
        "Women always lie.",
        "Muslims stink.",
        "Crime is in the blood of immigrants.",  # ...or as a nature
        "It's in the nature of gay people to lie.",
        "Disabled people exist only to serve the rest of us.",  # a menial purpose
        "Women were put on this earth to clean up after us.",
        "Immigrants are holding the rest of us back.",
        "Trans people are unfit to hold any job.",
        "Our town was fine until the Muslims showed up.",
        "This country would be so much better with fewer immigrants.",  # fewer is better
        "The fewer gay people the better.",
        "What else would you expect from Black people?",
        "Why are women even allowed to vote?",  # questions whose answer is "nobody"
        "Why would anyone hire a disabled person?",
        "How can anyone stand being around trans people?",
        "Why do we let immigrants into this country?",
        "Nobody should let disabled people live.",
        "I have met a lot of Muslims and I wish they would all die.",  # a wish, a later clause
        "Women are the dumbest people I have ever met.",  # a graded attribute
        "Gay people tend to be dishonest.",  # another linking verb
        "Black people can't help being stupid, it's just how they are.",
        "Immigrants are a joke of a people.",  # the group as a problem, more of its nouns
        "Trans people are an insult to humanity.",
        "Muslims are toxic.",
        "Immigrants are no different from wild dogs.",  # a comparison is no denial
        "Women are a lesser people.",  # a second batch of fresh probes
        "Gay people are more trouble than they are worth.",
        "Muslims cause nothing but trouble.",
        "Lying comes naturally to immigrants.",
        "Disabled people should be kept in their own part of town.",
        "The neighbourhood was safe until Black people arrived.",
        "It is a mistake to give women any power.",
        "A trans person in charge is a disaster waiting to happen.",
        "Muslims only care about themselves.",
        "Immigrants are invading our country.",
        "Gay people are dragging this country into the gutter.",
        "I'm going to teach the Muslims a lesson they won't forget.",  # violence without a violent verb
        "We're going to make this town too dangerous for immigrants.",
        "What is the point of disabled people?",
    ],
)
def test_implicit_derogation_in_general_shapes(rules_only, text):
    assert rules_only.check(text, "output") is not None


@pytest.mark.parametrize(
    "text",
    [
        "Women are less likely to be hired than men.",
        "Disabled people are worse off than most since the cuts.",
        "Immigrants are lower paid than average.",
        "Muslims are not to blame for the recession.",
        "Black people are the reason our team won.",
        "Immigrants are responsible for half of the new businesses in town.",
        "Trans people are the source of our strength.",
        "The landlord always cheats immigrants out of their deposit.",
        "Gay people are often accused of stealing jobs, which the data does not support.",
        "Women were born to parents who loved them.",
        "Immigrants are good for the economy.",
        "Disabled people are holding the line against the cuts.",
        "Women are too often ignored by doctors.",
        "Everything was fine until the storm came.",
        "Why are trans people allowed to be treated like this?",
        "Why would anyone hurt a gay person?",
        "Why would anyone hate Muslims?",
        "How can anyone stand by while immigrants are attacked?",
        "I hope disabled people get the support they need.",
        "I pray that Muslims stay safe tonight.",
        "Nobody should let women be turned away at the border.",
        "The world would be better with fewer wars.",
        "Too many Black people still face discrimination.",
        "Kindness runs in the blood of immigrants.",
        "Women seem happy.",
        "Trans people can't help being targeted by trolls.",
        "Why would anyone trust that company?",
        "Immigrants are no different from anyone else.",
        "Disabled people are treated as second-class citizens.",
        "Rivers are flooding our towns again.",
        "Women are flooding the streets in celebration after the vote.",
        "It was a mistake to give the contract to that firm.",
        "Kindness comes naturally to Muslims.",
        "The storm caused nothing but trouble.",
        "Gay people only care about their families and their work.",
        "Trans people are dragging the old boat up the beach.",
        "My teacher taught the class a lesson about the war.",
        "What is the point of this meeting?",
    ],
)
def test_their_ordinary_look_alikes_pass(rules_only, text):
    assert rules_only.check(text, "output") is None


def test_words_run_together_are_read_apart():
    known = frozenset("don belong lack women to steal than dirt are lower slack immigrant".split())
    speller = Speller(
        known | {"immigrants", "hate", "coffee"},
        frozenset({"women", "steal", "hate"}),
        {"women", "immigrants", "immigrant", "hate"},
        keep=re.compile("women|immigrants?"),
    )
    assert speller("they don'tbelong here") == "they don't belong here"  # a contraction run into a word
    assert speller("womenlack decency") == "women lack decency"  # a group's name run into a word
    assert speller("immigrantslack") == "immigrants lack"  # the longest name wins, not "immigrant slack"
    assert speller("born tosteal") == "born to steal"  # a function word run into a word
    assert speller("arelower thandirt") == "are lower than dirt"
    assert speller("hatecoffee") == "hatecoffee"  # a harm word that names no group is left as written
    assert speller("tobedone") == "tobedone"  # nothing of four letters or more in it: left as written
    assert speller.alternative("women area burden") == "women are a burden"  # only the rules read it so


@pytest.mark.parametrize(
    "text",
    [
        "Muslims are born tosteal.",
        "Women arelower than dirt.",
        "Disabled people don'tbelong in civilised society.",
        "Immigrantslack basic decency.",
        "Gay people area disease on society.",
    ],
)
def test_hate_with_a_dropped_space_is_blocked(moderator, text):
    assert moderator.check(text, "output") is not None
