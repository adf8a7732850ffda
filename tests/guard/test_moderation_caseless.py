"""The category rules run without IGNORECASE only where that finds the same matches (``caseless``)."""

import dataclasses
import random
import re

import pytest

from tests.support.moderation import MODERATION_CONFIG
from tests.support.paths import RAILS_DIR
from webapp.guard.moderation import ModerationConfig
from webapp.guard.moderation.caseless import CaselessPattern, is_lower_ascii, spells_only_lower_case
from webapp.guard.moderation.context import ContextRules
from webapp.guard.moderation.corpus import load_example_file
from webapp.guard.moderation.text import normalise

CONFIG = ModerationConfig.from_mapping(MODERATION_CONFIG)


@pytest.mark.parametrize(
    ("source", "same"),
    [
        ("kill", True),
        (r"\bfoo\s+\w+\S\W\B", True),  # classes and anchors that case does not change
        ("[a-z0-9]+x", True),
        ("[^a-z]x", True),
        ("[]a-]", True),  # a literal "]" first, a literal "-" last
        ("é", True),  # no ASCII letter matches it: ASCII text never does either way
        ("Kill", False),
        (r"\x4bill", False),  # "K" by number
        (r"\N{LATIN CAPITAL LETTER K}ill", False),
        ("[!-_]", False),  # a range holding the capitals: with IGNORECASE it matches "a"
        (r"[\--z]", False),
        (r"[a-\x7f]", False),
        ("[^]K]", False),
        ("\u212aill", False),  # the Kelvin sign matches "k" when case is ignored
        ("\u017ftupid", False),  # so does the long s "s"
        ("[а-я]", False),  # a range outside ASCII: which of its letters fold to ASCII is not checked
        (r"(\w)\1", False),  # escapes by number are all refused, group references too
        (r"(?P<group>jews?) are", True),  # a group's name is syntax, whatever its case
        (r"(?P<Claim>x)", True),
        (r"(?P<a>x)(?P=a)", False),  # a reference by name is refused like one by number
        (r"[(?P<x>]", False),  # inside a class they are characters: a capital P
    ],
)
def test_only_patterns_that_spell_lower_case_alone_drop_the_flag(source, same):
    assert spells_only_lower_case(source) is same


def test_text_with_capitals_or_outside_ascii_takes_the_original_pattern():
    pattern = CaselessPattern.of(re.compile("stupid", re.IGNORECASE))
    assert pattern.lower is not pattern.original
    for text in ("you are stupid", "you are STUPID", "you are \u017ftupid", "you are Stupid é"):
        assert [m.group() for m in pattern.finditer(text)] == [
            m.group() for m in pattern.original.finditer(text)
        ]
        assert len(list(pattern.finditer(text))) == 1
    assert is_lower_ascii("you are stupid") and not is_lower_ascii("you are STUPID")
    assert not is_lower_ascii("caf\u00e9")


def test_every_shipped_pattern_finds_the_same_matches_without_the_flag():
    """A differential check over the rails' own examples (harmful and allowed), as moderation reads them:
    every match of every pattern (the category rules and the context rules), not only whether one matched."""
    examples = load_example_file(RAILS_DIR / "moderation_examples.yml")
    texts = [normalise(e.text, CONFIG.substitutions) for e in random.Random(12).sample(examples, 120)]
    texts = [t for t in texts if is_lower_ascii(t)]
    assert len(texts) > 100
    context = ContextRules.from_mapping(CONFIG.context, CONFIG.lexicon)
    patterns = [p for rule in CONFIG.categories for p in rule.patterns]
    fields = [getattr(context, f.name) for f in dataclasses.fields(context)]
    patterns += [p for p in fields if isinstance(p, CaselessPattern)]
    patterns += [p for sequel in context.sequels for p in (sequel.first, sequel.then)]
    assert sum(p.lower is not p.original for p in patterns) > 0.9 * len(patterns)
    gated = [p for p in patterns if p.gates]
    assert len(gated) >= 10  # the long context patterns and the sequels
    matched = 0
    for pattern in patterns:
        for text in texts:
            expected = [m.span() for m in pattern.original.finditer(text)]
            assert [m.span() for m in pattern.lower.finditer(text)] == expected, (
                pattern.original.pattern,
                text,
            )
            # gated: the same matches, and the same text back from a substitution
            assert [m.span() for m in pattern.finditer(text)] == expected, (pattern.original.pattern, text)
            assert pattern.sub("#", text) == pattern.original.sub("#", text)
            matched += bool(expected)
    assert matched > 50  # the check saw patterns match, not only fail
    assert sum(1 for p in gated for t in texts if not p._may_match(t)) > 100  # the gates do skip
