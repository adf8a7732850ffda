"""The semantic tier's gate as the rails ship it (``semantic.gate`` in rails/config.yml): which sentences are
embedded at all. Each embedding costs ~8 ms of CPU, so ordinary answers must not pay for one; anything the
classifier may block on its own must still get there."""

from __future__ import annotations

import re

import pytest

from tests.support.moderation import MODERATION_CONFIG
from webapp.guard.moderation.config import ModerationConfig
from webapp.guard.moderation.context import ContextRules
from webapp.guard.moderation.semantic import SemanticTier
from webapp.guard.moderation.text import split_units

CONFIG = ModerationConfig.from_mapping(MODERATION_CONFIG)
GROUP = re.compile(r"\b(?:" + CONFIG.lexicon["group"] + r")\b")
TIER = SemanticTier.from_config(
    CONFIG.semantic, ContextRules.from_mapping(CONFIG.context, CONFIG.lexicon), CONFIG.lexicon
)


def embedded(text: str) -> bool:
    units = split_units(text.lower(), GROUP)  # as the moderator hands them over: normalised, lower case
    assert units  # a sentence that splits into nothing would pass the gate test below vacuously
    return any(TIER.wants(u) for u in units)


@pytest.mark.parametrize(
    "text",
    [
        "If you have an afternoon free, the covered market is worth a visit.",
        "A short bus ride takes you from the harbour to the old town.",
        "You will find small bakeries on every corner of the square.",
        "You can try the local cheese at the Saturday market.",
        "Book a table before you go to the harbour.",
        "Thank you for the question.",
        "The audio guide lets you skip the queue.",
    ],
)
def test_directions_and_offers_to_the_reader_are_not_embedded(text):
    assert not embedded(text)


@pytest.mark.parametrize(
    "text",
    [
        "Nobody in this office can stand you.",
        "Look at you, still living with your parents at forty.",
        "We know where your kids go to school.",
        "I'll come after you when you least expect it.",
        "The city would be better without you.",
        "You will find out what happens to people who talk.",
        "If you show up here again, your family will regret it.",
        "Your kind are not welcome.",
    ],
)
def test_what_may_be_said_of_the_reader_is_still_embedded(text):
    assert embedded(text)
