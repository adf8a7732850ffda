"""The literal look-up before each category rule's regex (``literals.py``) may skip a regex only where it
cannot match: every match holds a string of each set the analysis derived."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.moderation import MODERATION_CONFIG
from webapp.guard.moderation import ModerationConfig
from webapp.guard.moderation.literals import Probe, pattern_needs, required_sets
from webapp.guard.moderation.text import normalise
from webapp.guard.yamlfile import load_yaml

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.mark.parametrize(
    ("pattern", "sets"),
    [
        (r"\bcolou?r\b", [{"color", "colour"}]),
        (r"kill (?:all )?them", [{"kill them", "kill all them"}]),
        (r"(?:jews?|muslims?) are", [{"jew are", "jews are", "muslim are", "muslims are"}]),
        (r"how\s*cut", [{"cut"}, {"how"}]),  # "\s*" is any run of spaces, not none
        (r"\w+ing\b", [{"ing"}]),
        (r"(?:ab|cd)*ef", [{"ef"}]),
        (r"x{2,}yz", [{"x"}, {"yz"}]),
        (r"(?:vermin|\w+) here", [{" here"}]),  # one alternative needs nothing: the branch needs nothing
        (r"[a-z]+ (?:pigs|rats)", [{" pigs", " rats"}]),
    ],
)
def test_what_every_match_needs(pattern: str, sets: list[set[str]]) -> None:
    found = required_sets(re.compile(pattern))
    assert sorted(map(sorted, found)) == sorted(map(sorted, sets))


@pytest.mark.parametrize("pattern", [r"(?i:vermin)", r"vermin"])
def test_patterns_whose_literals_match_other_cases_are_never_filtered(pattern: str) -> None:
    flags = re.IGNORECASE if pattern == "vermin" else 0
    assert required_sets(re.compile(pattern, flags)) == ()


def test_a_skipped_rule_could_not_have_matched_any_corpus_text() -> None:
    """Soundness on the shipped rules and every labelled text (and each of its prefixes a stream shows):
    wherever a rule's regex matches, the look-up lets it run."""
    config = ModerationConfig.from_mapping(MODERATION_CONFIG)
    texts = []
    for path in sorted(DATA.glob("moderation_*.yaml")):
        texts += [t for t in _strings(load_yaml(path)) if "{" not in t]
    assert len(texts) > 1000
    runs = [(run.lower, pattern_needs(run.lower)) for rule in config.categories for run in rule._runs]
    assert sum(bool(needs) for _, needs in runs) > len(runs) // 2  # the filter is in use
    checked = 0
    for text in texts:
        normal = normalise(text, config.substitutions)
        for shown in {normal, normal[: len(normal) // 2]}:
            if not shown.isascii() or shown != shown.lower():
                continue
            probe = Probe(shown)
            for pattern, needs in runs:
                if needs and pattern.search(shown) is not None:
                    checked += 1
                    assert probe.may_match(needs), (pattern.pattern[:80], shown)
    assert checked > 100


def _strings(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for value in node.values() for s in _strings(value)]
    if isinstance(node, list):
        return [s for value in node for s in _strings(value)]
    return []
