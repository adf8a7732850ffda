"""The tuned tier's settings, as the rails give them (``custom_data.moderation.tuned`` in config.yml).

Apart from the tier (tuned.py) and its training (tuning.py) so that both read one list of what can be set,
with each default, and so that the training's digest covers every setting that changes the weights.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TunedConfig:
    enabled: bool = False
    # labelled corpora beside the semantic tier's examples and templates (relative to the rails directory):
    # every "block" and "pass" line, filled with every group of its file
    studied: tuple[str, ...] = ()
    epochs: int = 3
    learning_rate: float = 4e-5
    batch_size: int = 32
    seed: int = 0
    max_tokens: int = 64  # a sentence, not a document: longer ones are cut
    # a unit the rules let through is blocked when the model gives it at least this probability of harm
    block_above: float = 0.95
    # ...and the semantic tier's classifier (frozen embeddings) gives it at least this (0: not asked)
    second_floor: float = 0.0
    # a block by one of ``veto_rules`` is lifted when the model gives the text and each of its units at
    # most this probability of harm: the rules' look-alikes (counter-speech, negation, reclaimed words)
    veto_below: float = 0.02
    veto_rules: tuple[str, ...] = ()
    reason: str = "hateful, harassing or threatening content is not allowed here"

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None) -> TunedConfig:
        data = dict(data or {})
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        for name in ("studied", "veto_rules"):
            known[name] = tuple(str(v) for v in known.get(name) or ())
        return cls(**known)

    def training_key(self) -> str:
        """Every setting that changes the trained weights (the tier's thresholds do not)."""
        return (
            f"studied={self.studied};epochs={self.epochs};lr={self.learning_rate};batch={self.batch_size};"
            f"seed={self.seed};tokens={self.max_tokens}"
        )
