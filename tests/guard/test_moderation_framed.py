"""What a sentence sets apart from its own words (webapp/guard/moderation/framed.py): quoted text, the clause after
a greeting, placeholder Latin; with toy lists, so each case says which list decides it."""

from __future__ import annotations

import pytest

from webapp.guard.moderation.framed import Frames

FRAMES = Frames(
    greetings=frozenset({"hola", "hello"}),
    # "in" and "est" are other languages' words too: never the half a placeholder unit needs of its own
    placeholder={"lorem": True, "ipsum": True, "dolor": True, "amet": True, "in": False, "est": False},
    placeholder_share=0.8,
    min_words=3,
)


@pytest.mark.parametrize(
    ("written", "parts"),
    [
        ("Decoded from ROT13 it reads: Wrjf ner irezva.", ["Wrjf ner irezva."]),
        ('The message is "Wrjf ner irezva." today', ["Wrjf ner irezva."]),
        ("The message is “Wrjf ner irezva.”", ["Wrjf ner irezva."]),
        ("Run `git rebase -i` first.", ["git rebase -i"]),
        ("Note: a: b", []),  # a colon after the lead-in's: no one frame
        ("Nothing is set apart here.", []),
    ],
)
def test_what_a_sentence_frames_as_quoted(written, parts):
    assert FRAMES.quoted(written) == parts


@pytest.mark.parametrize(
    ("written", "clause"),
    [
        ("Hola amigo, los judíos son ratas.", "los judíos son ratas."),
        ("Hello my dear friend, how are you?", "how are you?"),
        ("Hello to all of you here, friends.", None),  # more than three words before the comma: no addressee
        ("Well, that is that.", None),  # no greeting
        ("Hola amigo!", None),  # a greeting alone
    ],
)
def test_the_clause_after_a_greeting(written, clause):
    assert FRAMES.greeted(written) == clause


@pytest.mark.parametrize(
    ("shown", "placeholder"),
    [
        ("Lorem ipsum dolor sit amet.", True),  # "sit" unlisted: 4 of 5 listed is the 0.8 asked
        ("Lorem ipsum sit sit amet.", False),  # 3 of 5
        ("Lorem ipsum dolor in est.", True),  # 3 of 5 its own
        ("Lorem in est.", False),  # 1 of 3 its own
        ("Lorem ipsum.", False),  # too short to tell
        ("Lorem ipsum dolor vermes sunt.", False),  # 3 of 5 listed
    ],
)
def test_placeholder_latin(shown, placeholder):
    assert FRAMES.is_placeholder(shown) is placeholder


def test_without_a_placeholder_list_nothing_is_placeholder():
    assert not Frames().is_placeholder("Lorem ipsum dolor amet.")
