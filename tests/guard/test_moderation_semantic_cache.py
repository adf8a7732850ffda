"""The semantic classifier remembers each text's score: a streamed answer is judged again at every word, and
the sentences before the growing one are scored once."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.moderation import default_moderator
from webapp.guard.moderation.fitting import FIT_BATCH, example_vectors
from webapp.guard.moderation.semantic import SemanticClassifier

ANSWER = (
    "Our lighthouse keeper walked the quay at dawn with a brass lantern. Gulls argued over herring scraps "
    "while the ferry from Skelmorlie idled at the pier and a boy counted its ropes. Later the tide turned. "
)


def classifier() -> SemanticClassifier:
    semantic = default_moderator()._semantic
    assert semantic is not None
    return semantic.wait_ready(300)


def test_a_text_is_scored_once_and_the_same_as_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    model = classifier()
    texts = [
        "the quinces of tarbert are sour.",
        "they sailed at dawn with the tide.",
        "the quinces of tarbert are sour.",
    ]
    alone = [model.scores([t])[0] for t in texts[:2]]
    rows: list[int] = []
    predict = model._model.predict_proba

    def counting(vectors: np.ndarray) -> np.ndarray:
        rows.append(len(vectors))
        return predict(vectors)

    monkeypatch.setattr(model._model, "predict_proba", counting)
    assert model.scores(texts) == [alone[0], alone[1], alone[0]]
    new = "a heron stood in the shallows of the loch."
    assert model.scores([texts[0], new]) == [alone[0], model.scores([new])[0]]
    assert rows == [1]  # only the text never scored before reached the classifier


def test_a_growing_answer_scores_each_settled_sentence_once(monkeypatch: pytest.MonkeyPatch) -> None:
    moderator, model = default_moderator(), classifier()
    scored: list[str] = []
    scores = model.scores

    def counting(texts: list[str]) -> list[tuple[float, str]]:
        scored.extend(t for t in texts if t not in model._scored)
        return scores(texts)

    monkeypatch.setattr(model, "scores", counting)
    answer = ""
    for word in ANSWER.split():
        answer += word + " "
        assert moderator.check(answer, "output", partial=True) is None
    assert len(scored) == len(set(scored))  # nothing classified twice


def test_harm_is_still_blocked_at_every_later_word() -> None:
    moderator = default_moderator()
    answer = "They should all be wiped out, every last one of those people. "
    first = moderator.check(answer, "output", partial=True)
    assert first is not None
    for word in "Anyway the weather is fine".split():
        answer += word + " "
        assert moderator.check(answer, "output", partial=True) == first


def test_examples_are_embedded_shortest_first_and_returned_in_their_own_order() -> None:
    class Padded:
        """A vector per sentence (its length and first letter); records each batch's longest sentence."""

        def __init__(self) -> None:
            self.widest: list[int] = []

        def encode(self, sentences: list[str]) -> np.ndarray:
            self.widest.append(max(map(len, sentences)))
            return np.array([[len(s), ord(s[0])] for s in sentences], dtype=np.float32)

    sentences = [chr(97 + i % 26) * (1 + (i * 37) % 200) for i in range(3 * FIT_BATCH)]
    encoder = Padded()
    vectors = example_vectors(encoder, sentences, None)
    assert vectors.tolist() == [[len(s), ord(s[0])] for s in sentences]
    assert (
        encoder.widest == sorted(encoder.widest) and encoder.widest[0] < 200
    )  # no batch padded to the longest
