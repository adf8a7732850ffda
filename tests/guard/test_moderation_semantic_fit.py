"""The semantic classifier's fit (webapp/guard/moderation/semantic.py): each side weighs half, and the studied
corpora's texts weigh what the rails say against an example."""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression

from webapp.guard.moderation.fitting import balanced_fit as _balanced_fit

RNG = np.random.default_rng(7)
VECTORS = np.vstack([RNG.normal(-1.0, 1.0, (30, 4)), RNG.normal(1.0, 1.0, (90, 4))])
HARMFUL = np.array([False] * 30 + [True] * 90)


def test_with_every_weight_one_it_is_sklearns_balanced_fit() -> None:
    ours = _balanced_fit(VECTORS, HARMFUL, np.ones(len(HARMFUL)))
    theirs = LogisticRegression(C=10.0, max_iter=5000, class_weight="balanced").fit(VECTORS, HARMFUL)
    assert np.allclose(ours.coef_, theirs.coef_, atol=1e-4)
    assert np.allclose(ours.intercept_, theirs.intercept_, atol=1e-4)


def test_lighter_studied_texts_move_the_line_less() -> None:
    studied = RNG.normal(0.0, 0.3, (40, 4))  # harmful texts where the allowed and harmful sides meet
    fitted = np.vstack([VECTORS, studied])
    answers = np.concatenate([HARMFUL, np.ones(40, bool)])
    probe = np.zeros((1, 4))

    def score(weight: float) -> float:
        weights = np.concatenate([np.ones(len(HARMFUL)), np.full(40, weight)])
        return float(_balanced_fit(fitted, answers, weights).predict_proba(probe)[0, 1])

    without = float(_balanced_fit(VECTORS, HARMFUL, np.ones(len(HARMFUL))).predict_proba(probe)[0, 1])
    assert without < score(0.3) < score(1.0)
