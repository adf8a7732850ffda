"""Whether counter-speech rejects the claim it quotes or reports, in words no list holds: ``StanceJudge``.

The condemnation lists know "is racist", "a lie", "was banned"; people reject a claim in endless other words
('"..." - said no one worth listening to', "I no longer speak to him", "we painted over it the same day",
"... are kidding themselves"), and each round of listed words left the next wording blocked. So the stance of
a passage towards what it quotes is judged like the harm itself: a logistic regression over the same
all-MiniLM-L6-v2 vectors, fitted at start from ``rails/moderation_stance.yml`` (passages that reject a claim
against passages that hold it, repeat it as their own or only report it).

The passage is judged with the claim taken out ("[claim]") and the group named as "[group]"
(``ContextRules.stance_passage``): the verdict is on the frame, the same for every group and every insult, and
the classifier cannot learn that a sentence about one group is worse than about another.

It only ever grants the excuse of counter-speech, and only to a unit the rules already see as quoting or
reporting a claim, that no agreement list voids. A judge that cannot run grants nothing: the rules judge the
text as they did without it (moderation fails closed).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from pathlib import Path

import numpy as np

from webapp.guard.moderation.embedder import EmbeddingNeeded, Encoder
from webapp.guard.moderation.fitting import example_vectors
from webapp.guard.moderation.memo import Memo, text_bytes
from webapp.guard.moderation.unnegated import unnegate
from webapp.guard.yamlfile import load_yaml

log = logging.getLogger(__name__)

REJECTS, HOLDS = "rejects", "holds"
# A verdict is fitted after a bare claim, as every passage it judges holds one: the claim is on both sides,
# so only the verdict tells them apart.
CLAIM = "[claim]"
_CLAIM_BEFORE = {"after": f"{CLAIM}. ", "predicate": f"{CLAIM} ", "whole": ""}
COPY_SIMILARITY = 0.92  # a passage this close to a holding example is that example, reworded at most
VERDICT_CACHE_SIZE = 4096  # passages whose verdict is remembered (a streamed answer asks again and again)
VERDICT_CACHE_BYTES = 2 << 20


def from_claim(passage: str) -> str:
    """The passage from its first claim on: what is said of the claim and after it. The frame before it
    ("people who insist", "my neighbour told me") is the same whether the speaker rejects or holds the claim,
    and it outweighed the few words of the verdict in the sentence's embedding."""
    start = passage.find(CLAIM)
    return passage if start < 0 else passage[start:]


def load_stance_examples(path: Path) -> tuple[list[str], list[bool]]:
    """(passages, rejects?) from the stance file: the verdicts of each side (what follows a quoted claim,
    or is said of it), then its whole passages."""
    data = load_yaml(path) or {}
    passages: list[str] = []
    labels: list[bool] = []
    for side, rejecting in ((REJECTS, True), (HOLDS, False)):
        verdicts = data.get(side) or {}
        said = [
            from_claim(f"{_CLAIM_BEFORE[kind]}{p}")
            for kind in _CLAIM_BEFORE
            for p in verdicts.get(kind) or ()
        ]
        passages += said
        labels += [rejecting] * len(said)
    if not any(labels) or all(labels):
        raise ValueError(f"{path} needs passages that reject a claim and passages that hold one")
    return passages, labels


class _StanceModel:
    """The logistic regression's probability of "rejects", except for a passage that is all but a copy of
    a holding example (cosine >= ``COPY_SIMILARITY``, nearer than any rejecting one): "Truer words were never
    spoken." is not excused however the linear model leans, so a holding example added to the file closes
    that wording for sure. (Any nearest holding example would veto too much: the bare reports, "my neighbour
    told me [claim].", sit next to every passage that reports a claim and then rejects it.)"""

    def __init__(
        self, encoder: Encoder, passages: list[str], labels: list[bool], cache_dir: Path | None = None
    ) -> None:
        from sklearn.linear_model import LogisticRegression

        self._vectors = example_vectors(encoder, [p.lower() for p in passages], cache_dir)
        self._rejects = np.array(labels)
        self._encoder = encoder
        # Weakly regularised: the verdicts differ by a few words in sentences otherwise alike, and a passage
        # written in the file must come out on its own side (so that adding one closes a wording).
        self._model = LogisticRegression(C=30.0, max_iter=5000, class_weight="balanced").fit(
            self._vectors, self._rejects
        )

    def probability(self, passage: str) -> float:
        vector = self._encoder.encode([passage])
        similarity = self._vectors @ vector[0]
        holding = float(similarity[~self._rejects].max())
        if holding >= COPY_SIMILARITY and holding > float(similarity[self._rejects].max()):
            return 0.0
        return float(self._model.predict_proba(vector)[0, 1])


_fitted: dict[tuple[int, str], _StanceModel] = {}
_fitted_lock = threading.Lock()


class StanceJudge:
    """``rejects(passage)``: the passage disowns the claim it quotes, with at least ``threshold`` probability.

    Built in the background with the semantic tier (``build``); a check before it is ready waits for it
    up to ``timeout_s``."""

    def __init__(self, examples: Path, threshold: float, *, timeout_s: float = 60.0) -> None:
        self._examples = examples
        self.threshold = threshold
        self._timeout_s = timeout_s
        self._model: _StanceModel | None = None
        self._ready = threading.Event()
        self._verdicts: Memo[str, float] = Memo(
            "stance_verdicts",
            max_entries=VERDICT_CACHE_SIZE,
            max_bytes=VERDICT_CACHE_BYTES,
            size_of=lambda text, _: text_bytes(text) + 32,
        )

    def build(self, encoder: Encoder | None, *, cache_dir: Path | None = None) -> None:
        """Embed the examples (or read their vectors from ``cache_dir``, as the semantic tier does) and fit,
        once per encoder and file in a process; run in a thread at start. None: the embedding model could
        not be loaded, so this judge grants nothing."""
        try:
            if encoder is None:
                return
            key = (id(encoder), hashlib.sha256(self._examples.read_bytes()).hexdigest())
            with _fitted_lock:
                if key not in _fitted:
                    _fitted[key] = _StanceModel(encoder, *load_stance_examples(self._examples), cache_dir)
                self._model = _fitted[key]
        except Exception as exc:  # no excuse is granted without it; the rules still judge
            log.error("the counter-speech stance model could not be built: %s: %s", type(exc).__name__, exc)
        finally:
            self._ready.set()

    def wait_ready(self, timeout_s: float | None = None) -> None:
        """Block until the model is fitted (or known to be missing); for start-up and tests."""
        if not self._ready.wait(timeout_s):
            raise TimeoutError("the counter-speech stance model is still loading")

    def probability(self, passage: str) -> float | None:
        """How surely the passage rejects its claim; None while the model cannot answer."""
        passage = from_claim(passage)
        if not self._ready.wait(self._timeout_s) or self._model is None:
            return None
        known, remembered = self._verdicts.get(passage)
        if known and remembered is not None:
            return remembered
        try:
            probability = self._model.probability(passage)
        except EmbeddingNeeded:
            raise  # the caller embeds off the event loop and asks again (embedder.embeddings_deferred)
        except Exception as exc:  # fails closed: no excuse
            log.error("counter-speech stance failed: %s: %s", type(exc).__name__, exc)
            return None
        self._verdicts.put(passage, probability)
        return probability

    def rejects(self, passage: str) -> bool:
        """The passage rejects its claim; one with a negation only if, without it, it would not: embeddings
        barely see a "not" ("I did not paint over it" sits next to "we painted over it"), so a negated
        verdict is granted only when the negation is what turns it into a rejection ("said no one worth
        listening to" against "said everyone worth listening to")."""
        probability = self.probability(passage)
        if probability is None or probability < self.threshold:
            return False
        plain = unnegate(passage)
        if plain == passage:
            return True
        without = self.probability(plain)
        return without is not None and without < 0.5  # without its negation it holds the claim
