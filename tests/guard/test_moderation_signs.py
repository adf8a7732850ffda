"""A costly pattern runs only where a cheap sign it needs is found: every text the pattern matches holds the
sign, so skipping it elsewhere changes no reading (random texts over the characters each pattern turns on,
and the shipped examples)."""

from __future__ import annotations

import random
import re

import pytest

from tests.support.paths import ROOT
from webapp.guard.moderation import encoded, surface, text, unknownwords
from webapp.guard.moderation.corpus import load_example_file

PAIRS = [
    (text._WORD_CHAIN, text._CHAINED),
    (text._LEET_WORD, text._LEET_SIGN),
    (unknownwords._CODE, unknownwords._CODE_SIGN),
    (encoded._MASKED, encoded._MASK_SIGN),
    (surface._INLINE_MARKS, surface._INLINE_SIGN),
]
# words of both cases and accents, digits, and every separator, mark and symbol the patterns read
PIECES = [*"ab kAé л0137 _-/+~•·.*`[]\\€£!¢¥@$:w=<#|", "ab", "kil", "Ab", "the ", "an ", "www.", "://"]


def _random_texts(count: int = 20000) -> list[str]:
    rng = random.Random(23)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 12))) for _ in range(count)]


def _chains(count: int = 5000) -> list[str]:
    """Words chained by separators, mixed or not, after and before random pieces ("the a-b-c", "x/ab/k-")."""
    rng = random.Random(12)
    seps = "-/+~_•·.*|"
    texts = []
    for _ in range(count):
        words = [rng.choice(["a", "ab", "kil", "Ab", "é", "1"]) for _ in range(rng.randint(2, 5))]
        chain = words[0] + "".join(
            rng.choice(seps[:2] if rng.random() < 0.5 else seps) + w for w in words[1:]
        )
        texts.append(rng.choice(PIECES) + chain + rng.choice(PIECES))
    return texts


def _examples() -> list[str]:
    return [e.text for e in load_example_file(ROOT / "rails" / "moderation_examples.yml")]


@pytest.mark.parametrize(("pattern", "sign"), PAIRS, ids=lambda p: getattr(p, "pattern", "")[:30])
def test_every_match_holds_the_sign(pattern: re.Pattern[str], sign: re.Pattern[str]) -> None:
    texts = _random_texts() + _chains() + _examples() + [t.lower() for t in _examples()]
    matched = [t for t in texts if pattern.search(t)]
    assert len(matched) > 50  # the random texts do reach the pattern
    assert [t for t in matched if not sign.search(t)] == []


def test_text_without_links_code_or_addresses_is_prose_as_written() -> None:
    texts = [*_random_texts(), "see `x` and http://a.b", "www.example.com", "mail me@host.org", "a@b"]
    for written in texts:
        assert unknownwords.prose_of(written) == unknownwords._NOT_PROSE.sub(" ", written)


def test_the_readings_of_plain_prose_skip_the_costly_patterns(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the signs are for: a sentence of plain prose is normalised and read for code, masks and markup
    without running the patterns that try every character."""

    class Untried:
        def __init__(self, pattern: re.Pattern[str]) -> None:
            self.pattern = pattern

        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"{self.pattern.pattern[:40]!r} was run on plain prose")

    for module, name in [
        (text, "_WORD_CHAIN"),
        (text, "_LEET_WORD"),
        (encoded, "_MASKED"),
        (surface, "_INLINE_MARKS"),
        (unknownwords, "_NOT_PROSE"),
    ]:
        monkeypatch.setattr(module, name, Untried(getattr(module, name)))
    prose = "Tickets are cheaper in the first week of May, and children under twelve travel free"
    assert text.normalise(prose, {}) == prose.lower()
    assert encoded.decodings(prose, lambda w: True, str.split) == []
    assert surface.as_shown(prose) == prose
    assert unknownwords.prose_of(prose) == prose
