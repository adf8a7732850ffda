"""The tuned tier: a sentence encoder fine-tuned to tell harm from the look-alikes that share its words.

The semantic tier reads frozen sentence embeddings, where "X are vermin" and "Saying X are vermin is vile"
sit side by side: no line drawn over them separates hate from the counter-speech, negation or neutral
mention beside it, which is why twenty rounds of rules and refits left the external functional suite at
~84% of hateful cases blocked and ~80% of legitimate ones passed. Fine-tuned on the same labelled corpora
(tuning.py), the encoder learns more of those differences: the rules with this tier block ~90% there, but it
also takes single words for stances ("Black people were enslaved."), so it is off by default
(docs/moderation.md, "The tuned tier").

It stands beside the rules both ways:
- it blocks a settled unit the rules let through when it is sure of harm (``block_above``);
- it lifts a block by the rules it was trained to second-guess (``veto_rules``: hate, slurs, dehumanisation,
  harassment) when it is sure the text and each of its units are harmless (``veto_below``). Threats,
  self-harm, extremism, weapons, unread languages and the profanity tier stay the rules' alone: there a miss
  costs more than an over-block, and the measured trade was worse.

It runs like the sentence encoder (ONNX Runtime, one thread, each sentence scored once and remembered), as a
``CachedEncoder`` whose one-number "vector" is the probability of harm, so a check on the event loop defers
the model run to a worker thread the same way (embedder.embeddings_deferred).
"""

from __future__ import annotations

import itertools
import logging
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from webapp.guard.moderation.embedder import (
    CachedEncoder,
    EmbeddingNeeded,
    Encoder,
    deferring,
    one_thread_model,
)
from webapp.guard.moderation.text import ENDED, sentences
from webapp.guard.moderation.tunedconfig import TunedConfig

if TYPE_CHECKING:
    from webapp.guard.moderation.semantic import SemanticTier

log = logging.getLogger(__name__)


class TunedScorer:
    """Texts in, one probability of harm per text out (an ``Encoder`` with one column)."""

    def __init__(self, tokenizer: Any, session: Any) -> None:
        self._tokenizer = tokenizer
        self._session = session
        self._lock = threading.Lock()

    @classmethod
    def load(cls, model_file: Path, tokenizer_file: Path, max_tokens: int) -> TunedScorer:
        return cls(*one_thread_model(model_file, tokenizer_file, max_tokens))

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        """One model run per text: the int8 model quantises its activations per run, over the whole batch,
        so a text scored beside others gets another probability than alone (0.039 vs 0.029 was measured) and
        a verdict near a threshold would depend on what else a check asked for."""
        scores = [self._score(text) for text in sentences]
        return np.array(scores, dtype=np.float32).reshape(-1, 1)

    def _score(self, text: str) -> float:
        encoding = self._tokenizer.encode(text.lower())
        feeds = {
            "input_ids": np.array([encoding.ids], dtype=np.int64),
            "attention_mask": np.array([encoding.attention_mask], dtype=np.int64),
        }
        with self._lock:
            return float(np.asarray(self._session.run(None, feeds)[0]).reshape(-1)[0])


class TunedTier:
    """The thresholds around a scorer that is trained or loaded in the background."""

    def __init__(
        self, config: TunedConfig, *, gate: re.Pattern[str] | None = None, second: SemanticTier | None = None
    ) -> None:
        """``gate``: what a sentence must hold to be judged for a block (the semantic tier's harm words):
        ordinary prose costs no model run. ``second``: the semantic tier, whose classifier over frozen
        embeddings must also give a sentence ``second_floor`` before this tier blocks it."""
        self.config = config
        self._gate = gate
        self._second = second
        self._scores: CachedEncoder | None = None
        self._error: BaseException | None = None
        self._ready = threading.Event()

    @classmethod
    def started(
        cls,
        config: TunedConfig,
        load: Callable[[], Encoder],
        *,
        gate: re.Pattern[str] | None = None,
        second: SemanticTier | None = None,
    ) -> TunedTier:
        """A tier whose classifier is loaded (or trained, the first time) in the background from now on.
        Not a daemon: a process that exits meanwhile waits, instead of killing onnxruntime mid-run."""
        tier = cls(config, gate=gate, second=second)
        threading.Thread(target=tier.build, args=(load,), name="moderation-tuned").start()
        return tier

    def build(self, load: Callable[[], Encoder]) -> None:
        try:
            self._scores = CachedEncoder(load(), max_entries=8192, max_bytes=4 << 20)
        except Exception as exc:  # kept: every check logs it and refuses
            log.error("the tuned moderation classifier could not be loaded: %s: %s", type(exc).__name__, exc)
            self._error = exc
        finally:
            self._ready.set()

    def wait_ready(self, timeout_s: float | None = None) -> None:
        if not self._ready.wait(timeout_s):
            raise TimeoutError("the tuned moderation classifier is still being prepared")
        if self._error is not None:
            raise RuntimeError("the tuned moderation classifier failed to load") from self._error

    def blocks(self, text: str, *, partial: bool, timeout_s: float) -> bool:
        """Whether the classifier is sure a sentence of the text that holds a harm word is harmful, read alone
        and with the sentences on either side (a quote is often condemned in the next one). A streamed text's
        last sentence is judged once it ends (the rules see every word meanwhile)."""
        said = _sentences(text)
        if partial and said and not ENDED.search(text):
            said.pop()
        gated = [i for i, s in enumerate(said) if self._gate is None or self._gate.search(s.lower())]
        if not gated:
            return False
        sure = self.config.block_above
        alone = self._probabilities([said[i] for i in gated], timeout_s)
        suspects = [i for i, p in zip(gated, alone, strict=True) if p >= sure]
        suspects = self._seconded(said, suspects, timeout_s)
        if not suspects:
            return False
        windows = [" ".join(said[max(0, i - 1) : i + 2]) for i in suspects]
        return float(self._probabilities(windows, timeout_s).max()) >= sure

    def _seconded(self, said: list[str], suspects: list[int], timeout_s: float) -> list[int]:
        """The suspects the semantic tier's classifier also gives ``second_floor``: fine-tuned on a few
        thousand sentences, this model takes single words for stances ("Black people were enslaved." 0.999),
        and a second model that learnt other things vetoes most of those (docs/moderation.md)."""
        floor = self.config.second_floor
        if not suspects or self._second is None or floor <= 0:
            return suspects
        scores = self._second.wait_ready(timeout_s).scores([said[i].lower() for i in suspects])
        return [i for i, (p, _) in zip(suspects, scores, strict=True) if p >= floor]

    def lifts(self, text: str, *, timeout_s: float) -> bool:
        """Whether the classifier is sure the whole text, each of its sentences and each claim they frame
        are harmless. The claims matter: "It is not racist to say X are stupid." scored 0.001 whole
        ("racist" reads as counter-speech), and would lift the rules' block; "X are stupid." does not."""
        said = _sentences(text)
        if any(len(s.split()) > LONGEST_LIFTED for s in said):
            return False
        claims = (claim for s in said for claim in framed_claims(s))
        texts = list(itertools.islice(itertools.chain([text.strip()], said, claims), MOST_LIFT_RUNS + 1))
        if len(texts) > MOST_LIFT_RUNS:  # spans are built only up to the cap: past it the block stands
            return False
        return float(self._probabilities(texts, timeout_s).max()) <= self.config.veto_below

    def _probabilities(self, texts: Sequence[str], timeout_s: float) -> np.ndarray:
        if deferring() and not self._ready.is_set():
            raise _StillPreparing(self._ready, timeout_s)  # wait in a worker, not on the event loop
        self.wait_ready(timeout_s)
        assert self._scores is not None
        return self._scores.encode(list(dict.fromkeys(texts)))[:, 0]


class _StillPreparing(EmbeddingNeeded):
    """Asked of a check while the classifier is still loading (or, on an install that skipped it, training):
    the caller waits for it off the event loop, then checks again."""

    def __init__(self, ready: threading.Event, timeout_s: float) -> None:
        Exception.__init__(self, "the tuned moderation classifier is still being prepared")
        self.sentences = []
        self._ready = ready
        self._timeout_s = timeout_s

    def fill(self) -> None:
        self._ready.wait(self._timeout_s)


def _sentences(text: str) -> list[str]:
    return [s for s in (piece.strip() for piece in sentences(text)) if s]


# The model reads 64 tokens of a text: a longer sentence is never read whole, so a block of it stands (and its
# spans, below, would cost a model run per word).
LONGEST_LIFTED = 40
# One model run per text scored (~2-4 ms each). A block is lifted to pass short counter-speech; a long text
# full of framed sentences would cost a run per word of it on every check, so past this its block stands.
MOST_LIFT_RUNS = 160
_QUOTED = re.compile(r"[\"'\u201c\u2018]([^\"'\u201d\u2019]{6,})[\"'\u201d\u2019]")


def framed_claims(sentence: str) -> list[str]:
    """Where a claim may stand inside a frame: every run of two or more words that starts or ends the
    sentence, and each quote. A list of framing words was tried first and walked around at once ("It is not
    racist to point out X are stupid.", "... when I mention X are stupid."): any verb can frame."""
    words = sentence.split()
    spans = [" ".join(words[i:]) for i in range(1, len(words) - 1)]
    spans += [" ".join(words[:i]) for i in range(2, len(words))]
    return [*spans, *(m.group(1).strip() for m in _QUOTED.finditer(sentence))]
