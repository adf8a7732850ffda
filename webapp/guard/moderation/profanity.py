"""The profanity tier: alt-profanity-check, a linear model over word n-grams shipped inside its wheel.

It knows swear words and slurs well and nothing else ("Women should all be killed" scores low), which is
why it is one tier among several. It is cheap: ~0.3 ms a text with the scorer below.

Swearing itself is not harm: by default (``ProfanityPolicy``) only swearing aimed at a group or a person
blocks; a deployment that wants a clean-language chat sets ``profanity.untargeted: block``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

ProfanityScorer = Callable[[Sequence[str]], Sequence[float]]


def load_profanity_scorer() -> ProfanityScorer:
    """alt-profanity-check's scorer, computed ~7x faster (0.3 ms instead of 2.3 ms per text) when the
    shipped model has the expected shape; the fast path must reproduce ``predict_prob`` or is not used."""
    from profanity_check import predict_prob  # ~1 s import: done once, when the Guard is built

    def slow(texts: Sequence[str]) -> list[float]:
        return [float(p) for p in predict_prob(list(texts))]

    try:
        fast = _fast_profanity_scorer()
        probe = ["you are stupid", "hello there", "what the hell", "I hate Mondays", "the bomb calorimeter"]
        if all(abs(a - b) < 1e-9 for a, b in zip(fast(probe), slow(probe), strict=True)):
            return fast
    except (AttributeError, IndexError, TypeError, ValueError):
        pass
    return slow


def _fast_profanity_scorer() -> ProfanityScorer:
    # CalibratedClassifierCV(LinearSVC, method="sigmoid") over k folds: the mean of k sigmoids of linear
    # scores. sklearn's predict_proba spends nearly all its time validating inputs fold by fold.
    import numpy as np
    import profanity_check.profanity_check as shipped

    folds = shipped.model.calibrated_classifiers_
    if shipped.model.method != "sigmoid" or list(shipped.model.classes_) != [0, 1]:
        raise ValueError("unexpected profanity model")
    weights = np.vstack([f.estimator.coef_[0] for f in folds])
    intercepts = np.array([f.estimator.intercept_[0] for f in folds])
    slopes = np.array([f.calibrators[0].a_ for f in folds])
    offsets = np.array([f.calibrators[0].b_ for f in folds])
    vectorizer = shipped.vectorizer
    params = vectorizer.get_params()
    if params["norm"] != "l2" or params["sublinear_tf"] or not params["use_idf"] or params["binary"]:
        raise ValueError("unexpected profanity vectorizer")
    # TF-IDF (l2-normalised) of a short text, by hand: sklearn's sparse-matrix path costs ~1 ms a call,
    # which a streamed answer pays once per chunk.
    analyze = vectorizer.build_analyzer()
    vocabulary = vectorizer.vocabulary_
    idf = vectorizer.idf_
    columns = np.ascontiguousarray(weights.T)  # feature -> one weight per fold

    def decision_of(text: str) -> np.ndarray:
        counts: dict[int, int] = {}
        for token in analyze(text):
            index = vocabulary.get(token)
            if index is not None:
                counts[index] = counts.get(index, 0) + 1
        if not counts:
            return intercepts
        indices = np.fromiter(counts, dtype=np.intp, count=len(counts))
        values = np.fromiter(counts.values(), dtype=np.float64, count=len(counts)) * idf[indices]
        return values @ columns[indices] / np.sqrt(values @ values) + intercepts

    def score(texts: Sequence[str]) -> list[float]:
        return [float((1.0 / (1.0 + np.exp(slopes * decision_of(t) + offsets))).mean()) for t in texts]

    return score


_CLAUSE = re.compile(r"\s*(?:[,;:!?()]|\s[-–—]\s|\.\s)\s*")


@dataclass(frozen=True)
class ProfanityPolicy:
    """Which swearing blocks. ``untargeted="allow"`` (the default): only swearing aimed at someone, in the
    clause that names them ("Fuck all Muslims", "you stupid bitch"); "Fuck yeah, what a day!" and "this
    fucking printer" pass. ``"block"``: any text the scorer finds profane.

    Aimed at a protected group it is hate, at a person harassment. The group's own name is neutralised before
    scoring: the scorer learnt that "gay" or "Muslim" are swear words ("Gay people are not sick" scores
    0.99), so a group is only the target of swearing that is still profane once the group is just "people".
    """

    untargeted: str  # "allow" | "block"
    group: re.Pattern[str]  # any protected group (the lexicon's {group}, slurs included)
    person: re.Pattern[str]  # a person addressed or named: "you", "he", a singular insult noun

    def judge(self, scorer: ProfanityScorer, text: str, threshold: float) -> str | None:
        """The rule a unit breaks ("profanity", "hate" or "harassment"), or None."""
        if self.untargeted == "block":
            return "profanity" if scorer([text])[0] >= threshold else None
        for clause in _CLAUSE.split(text):
            at_group = bool(self.group.search(clause))
            if not at_group and not self.person.search(clause):
                continue
            if scorer([self.group.sub("people", clause)])[0] >= threshold:
                return "hate" if at_group else "harassment"
        return None
