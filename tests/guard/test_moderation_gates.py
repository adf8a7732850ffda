"""Literal gates (``gates.py``): the selective sets a pattern needs, with the word boundaries it puts
around them, asked before the pattern."""

from __future__ import annotations

import re

from webapp.guard.moderation.gates import literal_gates


def test_gates_are_the_selective_sets_and_never_a_single_letter() -> None:
    gates = literal_gates(re.compile(r"\b(?:a|the)\s+(?:teach|give|show)\s+(?:you|them)\b"))
    assert [g.pattern for g in gates] == ["(?:give|show|teach)", r"(?:them\b|you\b)"]
    assert literal_gates(re.compile(r"(?:a|i)\s+\w+")) == ()
    assert literal_gates(re.compile("vermin", re.IGNORECASE)) == ()


def test_gates_keep_the_word_boundaries_around_a_word_list() -> None:
    """A ``\\b`` around a list (one entry of which is no fixed word) joins each of its words: "ape" is no
    gate for "cheaper" or "shape", and every text the pattern matches still passes."""
    pattern = re.compile(r"\b(?:ape|vermin|disgust\w*|rats?)\b|\byour?\b")
    gates = literal_gates(pattern)
    assert gates

    def passes(text: str) -> bool:
        return all(gate.search(text) for gate in gates)

    assert not any(
        passes(t) for t in ("a cheaper ticket", "the shape of it", "paper maps", "pirates", "yours")
    )
    for text in ("an ape", "vermin.", "disgusting", "rats", "you", "your map", "x-ape-y"):
        assert pattern.search(text) and passes(text), text
