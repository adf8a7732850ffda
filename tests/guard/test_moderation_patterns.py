"""A category rule picks the regexes a text can match by the literal sets found in it (``patterns.py``): the
patterns are filed under one set each, so a harmless growing sentence compares no pattern's needs at all,
and the regexes picked are exactly those whose every set was found."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bench.answers import answer_text
from tests.support.moderation import MODERATION_CONFIG
from webapp.guard.moderation import ModerationConfig, patterns
from webapp.guard.moderation.literals import Probe, Required
from webapp.guard.moderation.text import normalise


class _Counting:
    """A rule pattern's needs that count how often its sets are compared with a text's."""

    reads = 0

    def __init__(self, required: Required) -> None:
        self._required = required
        self.needs = required.needs
        self.top = required.top

    @property
    def ids(self) -> frozenset[int]:
        _Counting.reads += 1
        return self._required.ids

    def __bool__(self) -> bool:
        return bool(self._required)


def _prefixes(text: str) -> Iterator[str]:
    """What a stream shows of ``text``, word by word."""
    words = text.split(" ")
    for n in range(1, len(words) + 1):
        yield " ".join(words[:n])


def _streamed_answers(config: ModerationConfig) -> list[str]:
    return [
        normalise(p, config.substitutions)
        for n in range(3)
        for p in _prefixes(answer_text("distinct", 64, n))
    ]


def test_a_harmless_stream_compares_few_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    real = patterns.interned
    monkeypatch.setattr(patterns, "interned", lambda sets: _Counting(real(sets)))
    config = ModerationConfig.from_mapping(MODERATION_CONFIG)
    rules = config.categories
    texts = _streamed_answers(config)
    _Counting.reads = 0
    for text in texts:
        probe = Probe(text)
        for rule in rules:
            assert not rule.matches(text, probe=probe)
    # every pattern's needs compared at every check would be ~340 reads per text; filed, a few
    assert _Counting.reads < len(texts) * 20, _Counting.reads / len(texts)


def test_the_regexes_picked_are_those_whose_needs_were_found() -> None:
    config = ModerationConfig.from_mapping(MODERATION_CONFIG)
    texts = _streamed_answers(config) + [
        "jews are vermin and should all die",
        "muslims are a disease, kill them all",
        "women are objects",
    ]
    compared = 0
    for text in texts:
        probe = Probe(text)
        for rule in config.categories:
            found = probe.found(rule._top)
            assert found is not None
            naive = [p.lower for p, n in zip(rule.patterns, rule._needs, strict=True) if n.ids <= found]
            picked = rule._runnable(True, probe)
            assert picked == naive
            compared += len(naive)
    assert compared > 0  # the harmful texts do pick regexes


def test_a_rule_does_not_judge_a_unit_its_unless_pattern_matches() -> None:
    # round 10: "should die" of cells or pests tells no one to harm themselves
    rule = patterns.CategoryRule.from_mapping(
        {"name": "r", "reason": "x", "patterns": [r"\bshould die\b"], "unless": r"^(?:the )?cells\b"}
    )
    assert not rule.matches("the cells should die")
    assert rule.matches("you should die")
    assert (
        patterns.CategoryRule.from_mapping({"name": "r", "reason": "x", "patterns": ["die"]}).unless is None
    )


def test_a_rule_set_tries_every_rule_that_can_pick_a_regex_and_few_others() -> None:
    # each of ~120 rules asked in turn cost a third of the rules' time on ordinary prose; the set asks only
    # the rules one of whose keys the text holds, and must never leave out one that would have run a regex
    config = ModerationConfig.from_mapping(MODERATION_CONFIG)
    rule_set = patterns.RuleSet(config.categories)
    harmful = ["jews are vermin and should all die", "testify and you'll be eating through a straw"]
    texts = _streamed_answers(config) + harmful
    tried = 0
    for text in texts:
        probe = Probe(text)
        to_try = list(rule_set.to_try(text, probe))
        runnable = [r for r in config.categories if r._runnable(True, probe)]
        assert [r for r in to_try if r in runnable] == runnable  # none left out, order kept
        tried += len(to_try)
    assert tried < len(texts) * len(config.categories) / 4, tried / len(texts)
    assert all(any(r.matches(t) for r in rule_set.to_try(t, Probe(t))) for t in harmful)


def test_the_whole_text_rules_are_asked_only_where_a_pattern_can_match_and_find_what_each_would() -> None:
    # the whole text is scanned once for the few sets these rules need; a rule whose every pattern lacks a
    # set is not asked, and no verdict may differ from asking every rule in turn
    config = ModerationConfig.from_mapping(MODERATION_CONFIG)
    rule_set = patterns.RuleSet.of(config.categories, "output")
    harmful = [
        "Find where the journalist's kids go to school and post it.",
        "Dig up the nurse's home address and post it in the group.",
        "Nobody will stop you this time, the window is wide open.",
        "Hit her where it hurts, her kids walk home alone.",
        "Send her address to the guys from the forum, they'll sort her out.",
    ]
    # as written (capitals): not scanned, every rule asked
    harmful = [normalise(t, config.substitutions) for t in harmful] + ["Post the home address of the judge."]
    texts = _streamed_answers(config) + harmful
    found = []
    for text in texts:
        expected = next((rule for rule in rule_set.raw if rule.matches(text)), None)
        assert rule_set.whole_text_match(text) is expected
        found.append(expected)
    assert all(rule is not None for rule in found[-len(harmful) :])
    assert not any(found[: -len(harmful)])
