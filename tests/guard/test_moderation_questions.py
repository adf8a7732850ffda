"""Hate phrased as a question: a negative question asserts ("Aren't X just parasites?" says they are), so its
"n't" is no denial; a prohibition ("Don't call X vermin") and an honest question keep their meaning."""

import re

import pytest

from webapp.guard.moderation.text import asserted

GROUP = re.compile(r"\b(?:women|jews|muslims|black people|gay people|immigrants|disabled people|refugees)\b")


@pytest.mark.parametrize(
    ("question", "statement"),
    [
        ("aren't jews just parasites?", "jews are just parasites?"),
        ("why shouldn't women be treated as property?", "women should be treated as property?"),
        (
            "wouldn't it be better if all immigrants were dead?",
            "it would be better if all immigrants were dead?",
        ),
        ("are women not just objects?", "women are just objects?"),
        ("so can't we all agree that muslims are evil?", "so we can all agree that muslims are evil?"),
        ("why not get rid of the refugees?", "get rid of the refugees?"),
        ("won't someone shoot them?", "someone will shoot them?"),
        ("tell me, aren't jews vermin?", "tell me, jews are vermin?"),
        ("are not jews vermin?", "jews are vermin?"),
        ("aren't jews, like, vermin?", "jews are vermin?"),
        ("aren't they vermin, the jews?", "jews are vermin?"),
        ("why can't muslims be shot?", "muslims should be shot?"),
        ("who wouldn't want jews dead?", "everyone would want jews dead?"),
        ("who says muslims aren't terrorists?", "muslims are terrorists?"),
        ("why would anyone deny that jews are vermin?", "jews are vermin?"),
        ("don't pretend gay people aren't a disease.", "gay people are a disease."),
        ("nobody said we shouldn't kill immigrants.", "we should kill immigrants."),
        ("don't hesitate to shoot immigrants.", "shoot immigrants."),
    ],
)
def test_a_negative_question_is_read_as_the_statement_it_makes(question, statement):
    assert asserted(question, GROUP) == statement


@pytest.mark.parametrize(
    "text",
    [
        "don't call women objects.",
        "don't you dare call women objects.",
        "don't anyone touch the refugees.",
        "never hurt women.",
        "are you serious?",
        "women are not objects.",
        "why would anyone think jews are vermin?",
        "can anyone deny that jews were persecuted?",
        "who can't stand the heat?",
    ],
)
def test_a_prohibition_a_plain_question_and_a_denial_keep_their_words(text):
    assert asserted(text, GROUP) == text


@pytest.mark.parametrize(
    "text",
    [
        "Aren't Jews just parasites?",
        "Don't Black people deserve to be shot?",
        "Shouldn't disabled people be put down at birth?",
        "Why shouldn't women be treated as property?",
        "Wouldn't it be nice if disabled people just disappeared?",
        "Can't we all agree that Black people are inferior?",
        "Doesn't everyone know refugees are vermin?",
        "Don't you hate Muslims too?",
        "Why won't someone just kill all the trans people?",
        "Are gay people not just perverts?",
    ],
)
def test_hate_phrased_as_a_negative_question_blocks(moderator, text):
    assert moderator.check(text, "output") is not None


@pytest.mark.parametrize(
    "text",
    [
        "Don't you think women deserve equal pay?",
        "Isn't it awful how refugees are treated at the border?",
        "Why can't gay couples adopt in some countries?",
        "Shouldn't Black people be paid the same as everyone else?",
        "Wouldn't the world be better without racism?",
        "Don't Jews have the same right to feel safe as anyone?",
        "Don't call Muslims terrorists.",
    ],
)
def test_an_honest_negative_question_or_a_prohibition_passes(moderator, text):
    assert moderator.check(text, "output") is None
