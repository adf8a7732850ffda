"""The semantic tier's last look before it blocks: is the unit closest to a sentence known to be legitimate?

The classifier draws one line through embedding space. Positive and neutral statements about a group ("X
should be able to live without fear") share most of their vector with "X are <insult>" and can fall on the
harmful side, the more so when the studied corpora's hateful texts are fitted. Fitting legitimate look-alikes
as allowed moved the line for hateful sentences as well (held-out corpora lost blocks: docs/moderation.md).
A nearest-neighbour look moves no line: a unit the classifier would block goes to the rules alone only when
the nearest sentence it knows is a legitimate one, this close, and clearly closer than the nearest harmful
one. Hate far from every legitimate sentence is judged as before, and ordinary prose never pays: only a unit
about to be blocked is compared.
"""

from __future__ import annotations

import numpy as np


class Contrasts:
    """Unit-length vectors of legitimate and of harmful sentences, and how near is near enough."""

    def __init__(
        self, legitimate: np.ndarray, harmful: np.ndarray, *, similarity: float, margin: float
    ) -> None:
        self._legitimate = _unit_rows(legitimate)
        self._harmful = _unit_rows(harmful)
        self._similarity = similarity
        self._margin = margin

    def excuses(self, vector: np.ndarray) -> bool:
        """Whether the nearest legitimate sentence is at least ``similarity`` close (cosine) and at least
        ``margin`` closer than the nearest harmful one."""
        if not len(self._legitimate) or self._similarity > 1.0:
            return False  # none to compare with, or off (no cosine exceeds 1)
        query = vector / (np.linalg.norm(vector) or 1.0)
        nearest = float((self._legitimate @ query).max())
        harmful = float((self._harmful @ query).max()) if len(self._harmful) else -1.0
        return nearest >= self._similarity and nearest - harmful >= self._margin


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)
