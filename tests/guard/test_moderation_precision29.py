"""Session 29's precision fix: the hate rule's "X are ... <attribute>" read the group as the subject of a verdict
that was the speaker's on how the group is treated ("I find the way Muslims are treated revolting"), beside the
hateful twins in the same frames.

The treatment is exempt only where the sentence says nothing more of the group after the word ("... treated
revolting and are revolting" is hate). "The hatred Muslims face is unjustified" is still blocked: an exemption
for the hatred a group meets let "The hatred Muslims face is what they deserve" through, so it was not kept."""

from __future__ import annotations

import pytest

from tests.support.moderation import (
    assert_blocked_whole_and_streamed,
    assert_passes_whole_and_streamed,
)

# Each was blocked on 1b1ff2d.
LEGITIMATE = [
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
    # got through a first version of the fix (tried from outside before it landed)
    "The hatred Muslims face is what they deserve.",
    "The disgust gay people encounter is fully earned.",
    "The hatred Muslims face is not enough.",
    "The hatred Muslims face? They earned every bit of it.",
    "Jews are treated revolting and are revolting.",
    "Muslims are treated disgusting, but are disgusting.",
    "Jews are treated as inferior, because they are inferior.",
]


@pytest.mark.parametrize("text", LEGITIMATE)
async def test_legitimate_shapes_pass(checks, text):
    await assert_passes_whole_and_streamed(checks, text)


@pytest.mark.parametrize("text", HATEFUL)
async def test_hateful_twins_stay_blocked(checks, text):
    await assert_blocked_whole_and_streamed(checks, text)
