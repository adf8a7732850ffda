"""The nearest-sentence look before the semantic tier blocks (webapp/guard/moderation/contrasts.py): only a unit
clearly nearest a legitimate sentence is excused, and the legitimate look-alikes come from the categories the
rails name, not from the counter-speech beside them."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from webapp.guard.moderation.contrasts import Contrasts
from webapp.guard.moderation.studied import studied_legitimate

LEGITIMATE = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])  # lengths differ: compared by direction only
HARMFUL = np.array([[0.8, 0.6, 0.0]])


def contrasts(similarity: float = 0.9, margin: float = 0.05) -> Contrasts:
    return Contrasts(LEGITIMATE, HARMFUL, similarity=similarity, margin=margin)


def test_a_unit_nearest_a_legitimate_sentence_is_excused() -> None:
    assert contrasts().excuses(np.array([0.0, 0.1, 5.0]))


def test_a_unit_as_near_a_harmful_sentence_is_not() -> None:
    between = np.array([0.95, 0.3, 0.0])  # cosine 0.95 to the legitimate row, 0.94 to the harmful one
    assert not contrasts(margin=0.05).excuses(between)
    assert contrasts(margin=0.0).excuses(between)


def test_a_unit_far_from_every_legitimate_sentence_is_not() -> None:
    assert not contrasts().excuses(np.array([0.6, 0.0, 0.8]))  # nearest legitimate: 0.8


def test_with_no_legitimate_sentence_nothing_is_excused() -> None:
    empty = Contrasts(np.zeros((0, 3)), HARMFUL, similarity=0.0, margin=-1.0)
    assert not empty.excuses(np.array([1.0, 0.0, 0.0]))


def test_only_the_named_categories_lines_are_taken_each_with_the_next_group(tmp_path: Path) -> None:
    corpus = tmp_path / "studied.yaml"
    corpus.write_text(
        "groups:\n  - {group: cats}\n  - {group: dogs}\n"
        "block:\n  a:\n    - '{group} are vermin.'\n"
        "pass:\n  positive:\n    - '{group} are lovely.'\n    - '{group} are loyal.'\n"
        "  counter_quote:\n    - 'Saying {group} are vermin is vile.'\n",
        encoding="utf-8",
    )
    assert studied_legitimate({corpus: ["positive"]}) == ["Cats are lovely.", "Dogs are loyal."]
    assert studied_legitimate({corpus: []}) == []


def test_a_similarity_above_one_is_off_even_for_the_same_sentence() -> None:
    """The default (semanticconfig.py): no cosine exceeds 1, so not even a legitimate sentence itself is excused."""
    assert not contrasts(similarity=2.0, margin=-1.0).excuses(LEGITIMATE[0])
    assert contrasts(similarity=0.99, margin=-1.0).excuses(LEGITIMATE[0])
