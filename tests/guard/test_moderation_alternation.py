"""A long gated list is searched only in the alternatives whose words a text holds, with the same answer."""

import random
import re

from tests.support.moderation import MODERATION_CONFIG
from tests.support.paths import RAILS_DIR
from webapp.guard.moderation import ModerationConfig
from webapp.guard.moderation.caseless import GATED_LENGTH, CaselessPattern, is_lower_ascii
from webapp.guard.moderation.context import ContextRules
from webapp.guard.moderation.corpus import load_example_file
from webapp.guard.moderation.text import normalise

LIST = "|".join(
    [
        r"(?:\b(?:he |she )?deserved it\b|\bsaid no one ever\b)",
        r"\b(?P<who>they|we) (?:are|were) right\b",
        r"\bit is (?:simply )?the truth\b",
        r"\b(?:he|she) is\b",  # weak: needs only "he is"/"she is"
        r"(?:\bso true\b|\bwell said\b)",
        r"\b(?:could(?:n't| not) have (?:put|said) it better|took the words (?:right )?out of my mouth)\b",
    ]
)


def spans(match: re.Match[str] | None) -> object:
    return match and (match.span(), match.groupdict())


def test_the_list_is_searched_in_the_alternatives_a_text_holds_the_words_of() -> None:
    pattern = CaselessPattern.compile(LIST, gated=True)
    assert pattern.alternation is not None and pattern.gates  # the whole list's gate lets prose through
    assert len(LIST) >= GATED_LENGTH
    prose = "she is in lisbon in spring, and the trains are on time."
    assert all(gate.search(prose) for gate in pattern.gates)
    assert len(pattern.alternation.candidates(prose)) == 1  # of 6: only the weak one holds its words
    assert pattern.alternation.candidates("the trains are on time.") == []
    assert len(pattern.alternation.candidates("well, she is so true to it")) == 2


def test_the_match_is_the_one_the_whole_list_finds() -> None:
    pattern = CaselessPattern.compile(LIST, gated=True)
    texts = [
        "honestly they were right and it is the truth",  # two alternatives, the leftmost wins
        "she is right, they are right",  # the weak alternative first
        "he deserved it",  # two alternatives start at "he": the list's first one wins
        "well said. so true",
        "nothing here at all",
    ]
    for text in texts:
        assert spans(pattern.search(text)) == spans(pattern.lower.search(text)), text
    assert spans(pattern.search("he deserved it")) == ((0, 14), {"who": None})


def test_every_shipped_list_finds_the_same_matches() -> None:
    config = ModerationConfig.from_mapping(MODERATION_CONFIG)
    context = ContextRules.from_mapping(config.context, config.lexicon)
    lists = [context.endorsement, context.agreement, context.condemnation, context.frames]
    assert all(p.alternation is not None for p in lists)
    examples = load_example_file(RAILS_DIR / "moderation_examples.yml")
    texts = [normalise(e.text, config.substitutions) for e in random.Random(7).sample(examples, 300)]
    texts = [t for t in texts if is_lower_ascii(t)]
    found = 0
    for pattern in lists:
        for text in texts:
            expected = pattern.lower.search(text) if all(g.search(text) for g in pattern.gates) else None
            assert spans(pattern.search(text)) == spans(expected), text
            found += expected is not None
    assert found > 50  # the lists matched often enough for the comparison to mean something
