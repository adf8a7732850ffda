"""Session 29's precision fixes: the rules read a group's name as the subject of a verdict where the verdict was
the speaker's on what is done to the group, beside the hateful twins in the same frames.

"The hatred Muslims face" names the group as the target of the hatred, not its object; "the way Muslims are
treated revolting" calls the treatment revolting, not the group. Both were blocked by the rules alone (the hate
rule's "hatred ... X" and "X are ... <attribute>" patterns)."""

from __future__ import annotations

import pytest

from tests.support.moderation import (
    assert_blocked_whole_and_streamed,
    assert_passes_whole_and_streamed,
)

# Each was blocked on 1b1ff2d.
LEGITIMATE = [
    "The hatred Muslims face is unjustified and the attacks on them are never deserved.",
    "The contempt Jews endured for centuries was shameful.",
    "The disgust gay people encounter at work must end.",
    "The hatred refugees still face every day is a disgrace.",
    "I find the way Muslims are treated revolting.",
    "I find the way Jews are spoken to disgusting.",
    "I find the way women are treated at work disgusting.",
]
# Hateful texts in the same frames: blocked before and after.
HATEFUL = [
    "Muslims are revolting.",
    "Muslims are so revolting.",
    "The hatred I feel for Muslims is justified.",
    "My contempt for Jews grows every day.",
    "Hatred is what Muslims deserve.",
    "Disgust is all I feel when I see gay people.",
    "The contempt Jews get is deserved.",
    "Jews are being treated as vermin, which they are.",
    "Trans people are treated like freaks because they are disgusting.",
]


@pytest.mark.parametrize("text", LEGITIMATE)
async def test_legitimate_shapes_pass(checks, text):
    await assert_passes_whole_and_streamed(checks, text)


@pytest.mark.parametrize("text", HATEFUL)
async def test_hateful_twins_stay_blocked(checks, text):
    await assert_blocked_whole_and_streamed(checks, text)
