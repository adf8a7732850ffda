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


class _CountedGate:
    def __init__(self, gate: re.Pattern[str]) -> None:
        self.gate, self.searches = gate, 0

    def search(self, text: str) -> re.Match[str] | None:
        self.searches += 1
        return self.gate.search(text)


def test_prose_without_the_gates_literals_skips_its_word_lists() -> None:
    """The gate's word lists cost ~30 us per unit; the literals every match needs are asked first."""
    tier = SemanticTier.from_config(
        CONFIG.semantic, ContextRules.from_mapping(CONFIG.context, CONFIG.lexicon), CONFIG.lexicon
    )
    assert tier._gate is not None
    counted = _CountedGate(tier._gate)
    tier._gate = counted  # type: ignore[assignment]
    plain = split_units("the covered market is worth a visit.", GROUP)
    assert not any(tier.wants(u) for u in plain)
    assert counted.searches == 0
    assert any(tier.wants(u) for u in split_units("i will kill you.", GROUP))


def test_the_literals_first_change_no_unit_the_gate_lets_through() -> None:
    from tests.support.paths import ROOT
    from webapp.guard.moderation.corpus import load_example_file

    assert TIER._gate is not None
    texts = [e.text.lower() for e in load_example_file(ROOT / "rails" / "moderation_examples.yml")]
    units = [u for t in texts for u in split_units(t, GROUP)]
    assert sum(bool(TIER._gate.search(u.text)) for u in units) > 100
    assert [u.text for u in units if TIER.wants(u) != bool(TIER._gate.search(u.text))] == []
