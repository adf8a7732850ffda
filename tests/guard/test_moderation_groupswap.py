"""Group-consistent scoring: the classifier judges one dehumanising sentence differently by the group it
names; a unit naming a group and a word of harm is also read as said of the reference groups."""

from __future__ import annotations

import pytest

from tests.support.moderation import (
    MODERATION_CONFIG,
    assert_blocked_whole_and_streamed,
    assert_passes_whole_and_streamed,
)
from webapp.guard.moderation.groupswap import GroupSwap

# Each of these scored below the threshold as written; said of Muslims, immigrants or Jews it clears it.
UNDER_SCORED = [
    "Having women around is like having rats in the house.",
    "Having gay people around is like having rats in the house.",
    "Having disabled people around is like having rats in the house.",
]
TWINS = [
    "Having women around is like having sunshine in the house.",
    "Having gay people around is like having family in the house.",
    "Having mice around is like having rats in the house.",
    "In 1938 propaganda said having Jews around was like having rats in the house.",
    "Having rats in the house is a job for pest control, not for women.",
]


@pytest.mark.parametrize("text", UNDER_SCORED)
async def test_a_dehumanising_comparison_blocks_whatever_group_it_names(checks, text):
    await assert_blocked_whole_and_streamed(checks, text)


@pytest.mark.parametrize("text", TWINS)
async def test_its_ordinary_twins_pass(checks, text):
    await assert_passes_whole_and_streamed(checks, text)


def _swap() -> GroupSwap:
    lexicon = {"group": "women|gay people|jews", "dehumanising": "rats|vermin"}
    data = {
        "groups": ["muslims", "jews"],
        "when": r"\b(?:{dehumanising})\b",
        "unless": r"\b(?:was|were)\b",
        "threshold": 0.9,
        "categories": ["dehumanisation"],
    }
    swap = GroupSwap.from_config(data, lexicon)
    assert swap is not None
    return swap


def test_only_a_unit_naming_a_group_and_a_harm_word_is_read_again():
    swap = _swap()
    assert swap.readings("women are rats") == ["muslims are rats", "jews are rats"]
    assert swap.readings("women are lovely") == []
    assert swap.readings("mice are rats") == []
    assert swap.readings("women were called rats") == []  # a telling of what was done


def test_a_swapped_reading_counts_only_above_its_bar_and_for_its_harms():
    swap = _swap()
    readings = {"muslims are rats": (0.95, "dehumanisation"), "jews are rats": (0.5, "dehumanisation")}
    hateful = {"muslims are pests": (0.95, "hate"), "jews are pests": (0.95, "hate")}
    scores = {**readings, **hateful}

    def score(texts):
        return [scores[t] for t in texts]

    own = [(0.4, "dehumanisation")]
    assert swap.raised(score, ["women are rats"], own, below=0.85, skip=[False]) == [(0.95, "dehumanisation")]
    assert swap.raised(score, ["women are rats"], own, below=0.85, skip=[True]) == own  # it may deny harm
    assert swap.raised(score, ["women are rats"], own, below=0.3, skip=[False]) == own  # already blocked
    pests = GroupSwap.from_config(
        {"groups": ["muslims", "jews"], "when": "pests", "categories": ["dehumanisation"]},
        {"group": "women"},
    )
    assert pests is not None
    assert pests.raised(score, ["women are pests"], own, below=0.85, skip=[False]) == own  # "hate" not kept


def test_the_app_config_turns_it_on():
    swap = MODERATION_CONFIG["semantic"]["group_swap"]
    assert swap["groups"] and swap["categories"] == ["dehumanisation", "threats", "hate"]
