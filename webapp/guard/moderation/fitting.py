"""How the moderation's classifiers are fitted at start: the examples embedded (in batches, cached on disk
between starts) and a logistic regression whose two sides weigh the same.

Kept apart from the tiers that use them (semantic.py, stance.py): what a fit costs at start is one concern,
what a check does with the fitted model another.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from webapp.guard.moderation.embedder import Encoder

log = logging.getLogger(__name__)

FIT_BATCH = 64  # example sentences embedded per model run at start


def example_vectors(encoder: Encoder, sentences: Sequence[str], cache_dir: Path | None) -> np.ndarray:
    """The examples' embeddings, from ``cache_dir`` when this encoder embedded these exact sentences before
    (a restart then skips seconds of CPU), else embedded in batches and saved there for the next start."""
    identity = getattr(encoder, "identity", None)
    path = None
    if cache_dir is not None and identity:
        digest = hashlib.sha256("\n".join([identity, *sentences]).encode("utf-8")).hexdigest()
        path = cache_dir / "moderation" / f"examples-{digest[:32]}.npy"
        try:
            vectors = np.load(path)
            if vectors.shape[0] == len(sentences):
                return vectors
        except (OSError, ValueError):
            pass  # not cached yet, or unreadable: embed again
    vectors = _embedded(encoder, sentences)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.tmp.npy")
            np.save(partial, vectors)
            partial.replace(path)
        except OSError as exc:  # a read-only cache costs start-up time, nothing else
            log.warning("moderation: could not cache the example embeddings: %s", exc)
    return vectors


def _embedded(encoder: Encoder, sentences: Sequence[str]) -> np.ndarray:
    """In batches: one padded batch of ~1,000 sentences would hold ~500 MB of activations at once. Shortest
    first, so a batch is padded to about its own sentences' length, not to the longest of a mixed lot."""
    order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
    ordered = [sentences[i] for i in order]
    batches = [encoder.encode(ordered[i : i + FIT_BATCH]) for i in range(0, len(ordered), FIT_BATCH)]
    if not batches:
        return encoder.encode([])
    vectors = np.empty((len(sentences), batches[0].shape[1]), dtype=batches[0].dtype)
    vectors[order] = np.vstack(batches)
    return vectors


def balanced_fit(vectors: np.ndarray, harmful: np.ndarray, weights: np.ndarray) -> Any:
    """Balanced: the harmful side is larger (every harmful train sentence has a misspelt twin), and an
    unweighted fit then leans towards blocking plain statements about a group. Each side weighs half,
    counted by the samples' own weights (as sklearn's "balanced" does when they are all 1)."""
    from sklearn.linear_model import LogisticRegression

    share = weights[harmful].sum() / weights.sum()
    balance = np.where(harmful, 0.5 / share, 0.5 / (1 - share))
    return LogisticRegression(C=10.0, max_iter=5000).fit(vectors, harmful, sample_weight=weights * balance)
