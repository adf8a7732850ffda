"""The semantic tier: harm said in words no pattern lists, judged from sentence embeddings.

A logistic regression over all-MiniLM-L6-v2 vectors, fitted at start from the labelled examples in
``rails/moderation_examples.yml`` and the train split of ``rails/moderation_templates.yml`` (harmful
categories against contrasts that share their words: counter-speech, negation, neutral mentions of groups,
"kill the process", crime fiction, medicine). The examples are data and the fit is deterministic, so no
weights are stored. It is the second opinion behind the patterns, so it is tuned to rarely block on its own.

Embeddings are costly (~4-9 ms of CPU per sentence here), so two things keep a streamed answer cheap:
- a gate: only units holding a word from the harm vocabulary (groups, violence, death, insults...) are
  embedded; "The capital of France is Paris." never is;
- a cache: each unit is embedded once, however often the growing answer is checked again.

Embeddings barely see negation ("X are not vermin" sits next to "X are vermin"), so a unit whose negation
stands over a harm word ("never hurt", "not vermin", "don't hate": ``negated_harm``) is also embedded
without its negation, and this tier blocks it only when the negation clearly made it worse (by
``denial_margin``): "No Jew can be trusted" against "Jew can be trusted". Such a unit whose plain form is as
harmful ("I would never hurt you") may be denying harm: the category rules judge it, and they carry explicit
patterns for negated harm ("you don't deserve to live"). A negation elsewhere denies nothing ("X are like
children who never grow up", "Real men don't let X make decisions", "I can't wait to ...") and the unit is
judged like any other.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from webapp.guard.moderation.content import carries_content, without_dangling_end
from webapp.guard.moderation.context import ContextRules
from webapp.guard.moderation.contrasts import Contrasts
from webapp.guard.moderation.corpus import load_example_file, load_templates
from webapp.guard.moderation.embedder import Encoder
from webapp.guard.moderation.fitting import balanced_fit, example_vectors
from webapp.guard.moderation.gates import literal_gates
from webapp.guard.moderation.groupswap import GroupSwap
from webapp.guard.moderation.lexicon import expand
from webapp.guard.moderation.memo import Memo, text_bytes
from webapp.guard.moderation.readon import ReadOn
from webapp.guard.moderation.semanticconfig import SemanticConfig
from webapp.guard.moderation.studied import studied_harmful, studied_legitimate
from webapp.guard.moderation.text import Unit
from webapp.guard.moderation.unnegated import unnegate
from webapp.guard.yamlfile import load_yaml

log = logging.getLogger(__name__)

ALLOWED = "allowed"
SCORE_CACHE_SIZE = 8192  # texts whose score is remembered (least recently used out first)
SCORE_CACHE_BYTES = 8 << 20  # and at most this much of them (an estimate, see memo.py)


def load_examples(path: Path, templates: Path | None = None) -> tuple[list[str], list[str]]:
    """(sentences, labels): a harmful category name, or "allowed" for every contrast.

    The examples file, plus the train split of the template corpus when there is one (its categories are
    the finer functional ones, mapped to the rule they belong to by the corpus's ``rules``)."""
    examples = load_example_file(path)
    if templates is not None:
        rules = load_yaml(templates).get("rules") or {}
        examples += [
            replace(e, category=rules.get(e.category, e.category))
            for e in load_templates(templates, "train", all_groups=False)
        ]
    labels = [e.category if e.expected == "block" else ALLOWED for e in examples]
    return [e.text for e in examples], labels


class SemanticClassifier:
    """Harmful-or-not plus the nearest harmful category, for one unit at a time (batched)."""

    def __init__(
        self,
        encoder: Encoder,
        sentences: Sequence[str],
        labels: Sequence[str],
        *,
        also_harmful: Sequence[str] = (),
        also_weight: float = 1.0,
        contrasts: Sequence[str] = (),
        nearness: tuple[float, float] = (2.0, 0.0),
        cache_dir: Path | None = None,
    ) -> None:
        vectors = example_vectors(encoder, [s.lower() for s in sentences], cache_dir)
        harmful = np.array([label != ALLOWED for label in labels])
        self._encoder = encoder
        # The studied texts move the line between harmful and allowed, not the categories' centres.
        fitted, answers, weights = vectors, harmful, np.ones(len(harmful))
        known = {s.lower() for s in sentences}
        more = [t for t in dict.fromkeys(t.lower() for t in also_harmful) if t not in known]
        if more:
            fitted = np.vstack([vectors, example_vectors(encoder, more, cache_dir)])
            answers = np.concatenate([harmful, np.ones(len(more), bool)])
            weights = np.concatenate([weights, np.full(len(more), also_weight)])
        self._model = balanced_fit(fitted, answers, weights)
        legitimate = [vectors[~harmful]]
        if contrasts:
            legitimate.append(example_vectors(encoder, [t.lower() for t in contrasts], cache_dir))
        similarity, margin = nearness
        self._contrasts = Contrasts(
            np.vstack(legitimate), fitted[answers], similarity=similarity, margin=margin
        )
        categories = sorted({label for label in labels if label != ALLOWED})
        self._categories = categories
        centroids = np.vstack([vectors[np.array(labels) == c].mean(axis=0) for c in categories])
        self._centroids = centroids / np.linalg.norm(centroids, axis=1, keepdims=True)
        self._scored: Memo[str, tuple[float, str]] = Memo(
            "sentence_scores", max_entries=SCORE_CACHE_SIZE, max_bytes=SCORE_CACHE_BYTES, size_of=_score_bytes
        )

    def scores(self, texts: Sequence[str]) -> list[tuple[float, str]]:
        """Probability that each text is harmful, and the harmful category it is closest to.

        Remembered per text: a streamed answer is judged again at every word, with the sentences before the
        growing one unchanged (their vectors are remembered by the encoder; this spares the classifier)."""
        known: dict[str, tuple[float, str]] = {}
        for text in texts:
            found, score = self._scored.get(text)
            if found and score is not None:
                known[text] = score
        fresh = list(dict.fromkeys(t for t in texts if t not in known))
        if fresh:
            vectors = self._encoder.encode(fresh)
            probabilities = self._model.predict_proba(vectors)[:, 1]
            nearest = (vectors @ self._centroids.T).argmax(axis=1)
            scored = [(float(p), self._categories[i]) for p, i in zip(probabilities, nearest, strict=True)]
            for text, score in zip(fresh, scored, strict=True):
                self._scored.put(text, score)
                known[text] = score
        return [known[t] for t in texts]

    def contrasted(self, text: str) -> bool:
        """Whether the text is nearest a legitimate sentence (contrasts.py); its vector is the encoder's
        remembered one, so this costs a comparison, not an embedding."""
        return self._contrasts.excuses(self._encoder.encode([text])[0])


def _score_bytes(text: str, score: tuple[float, str]) -> int:
    return text_bytes(text) + 120  # the tuple and its float; the category name is shared


_fitted: dict[tuple[int, str], SemanticClassifier] = {}
_fitted_lock = threading.Lock()


def fitted_classifier(
    encoder: Encoder,
    examples: Path,
    templates: Path | None = None,
    *,
    studied: Sequence[Path] = (),
    studied_weight: float = 1.0,
    contrasts: Mapping[Path, Sequence[str]] | None = None,
    nearness: tuple[float, float] = (2.0, 0.0),
    cache_dir: Path | None = None,
) -> SemanticClassifier:
    """One fit per encoder and example files in a process: every Guard built from the same rails shares it
    (and concurrent builds wait for the first instead of embedding the examples again)."""
    digest = hashlib.sha256(examples.read_bytes())
    for path in [*([templates] if templates is not None else []), *studied, *(contrasts or {})]:
        digest.update(path.read_bytes())
    key = (
        id(encoder),
        f"{digest.hexdigest()}:{studied_weight}:{nearness}:{sorted((contrasts or {}).items())}",
    )
    with _fitted_lock:
        if key not in _fitted:
            texts, labels, also = *load_examples(examples, templates), studied_harmful(studied)
            _fitted[key] = SemanticClassifier(
                encoder,
                texts,
                labels,
                also_harmful=also,
                also_weight=studied_weight,
                contrasts=studied_legitimate(contrasts or {}),
                nearness=nearness,
                cache_dir=cache_dir,
            )
        return _fitted[key]


class SemanticTier:
    """The gate, negation handling and threshold around a classifier that is built in the background."""

    def __init__(
        self,
        config: SemanticConfig,
        context: ContextRules,
        gate: re.Pattern[str] | None,
        anchors: Mapping[str, re.Pattern[str]] | None = None,
        swearing: re.Pattern[str] | None = None,
        *,
        negated_harm: re.Pattern[str] | None = None,
        benign: re.Pattern[str] | None = None,
        mourning: re.Pattern[str] | None = None,
        inert: re.Pattern[str] | None = None,
        group: re.Pattern[str] | None = None,
        swap: GroupSwap | None = None,
    ) -> None:
        self.config = config
        self._context = context
        self._gate = gate
        # literals every gate match needs, searched first: cheaper than the gate's word lists on prose
        self._gate_needs = literal_gates(gate) if gate is not None else ()
        # An embedding sees "You can do it, I believe in you" near "you should end it": a block on the
        # classifier's word alone needs the unit to name what its category is about.
        self._anchors = dict(anchors or {})
        self._swearing = swearing
        self._negated_harm = negated_harm
        self._read_on = ReadOn(benign, mourning, group)  # the benign shapes it does not read (readon.py)
        self._groupre = group
        self._inert = inert
        self._swap = swap
        self._classifier: SemanticClassifier | None = None
        self._error: BaseException | None = None
        self._ready = threading.Event()

    @classmethod
    def from_config(
        cls, config: SemanticConfig, context: ContextRules, lexicon: Mapping[str, str]
    ) -> SemanticTier:
        """The tier with its patterns compiled (word-list names in them expanded from ``lexicon``)."""

        def one(pattern: str) -> re.Pattern[str] | None:
            return re.compile(expand(pattern, lexicon)) if pattern else None

        def each(patterns: Mapping[str, str]) -> dict[str, re.Pattern[str]]:
            return {name: re.compile(expand(pattern, lexicon)) for name, pattern in patterns.items()}

        return cls(
            config,
            context,
            one(config.gate),
            each(config.anchors),
            one(config.swearing),
            negated_harm=one(config.negated_harm),
            benign=one(config.benign),
            mourning=one(config.mourning),
            inert=one(config.inert),
            group=one(r"\b(?:{group})\b") if "group" in lexicon else None,
            swap=GroupSwap.from_config(config.group_swap, lexicon),
        )

    def build(
        self,
        encoder: Encoder,
        examples: Path,
        templates: Path | None = None,
        *,
        cache_dir: Path | None = None,
    ) -> None:
        """Embed the examples (or read their vectors from ``cache_dir``) and fit; run in a thread at start."""
        studied = [examples.parent / p for p in self.config.studied]
        contrasts = {examples.parent / p: names for p, names in self.config.contrasts.items()}
        self._classifier = fitted_classifier(
            encoder,
            examples,
            templates,
            studied=studied,
            studied_weight=self.config.studied_weight,
            contrasts=contrasts,
            nearness=(self.config.contrast_similarity, self.config.contrast_margin),
            cache_dir=cache_dir,
        )
        self._ready.set()

    def fail(self, error: BaseException) -> None:
        """The tier cannot run: every check from now on raises (and the Moderator refuses the text)."""
        self._error = error
        self._ready.set()

    def wait_ready(self, timeout_s: float | None = None) -> SemanticClassifier:
        if not self._ready.wait(timeout_s):
            raise TimeoutError("the semantic moderation model is still loading")
        if self._classifier is None:
            raise RuntimeError("the semantic moderation model could not be loaded") from self._error
        return self._classifier

    def wants(self, unit: Unit) -> bool:
        if self._gate is None:
            return True
        return all(need.search(unit.text) for need in self._gate_needs) and bool(self._gate.search(unit.text))

    def judge(self, units: Sequence[Unit], timeout_s: float | None = None) -> str | None:
        """The harmful category of the first unit this tier blocks, or None."""
        # A clause split off its sentence is for the rules: alone, "they make the world more fun" resolved
        # to "gay people make ..." is the bare "X are/do ..." statement this classifier over-reads.
        candidates = [u for u in self._read_on.units(units) if self._judges(u)]
        if not candidates:
            return None
        classifier = self.wait_ready(timeout_s)
        said = (without_dangling_end(self._unsworn(t)) for u in candidates for t in self._readings(u))
        texts = [t for t in dict.fromkeys(said) if carries_content(t)]
        if not texts:
            return None
        denials = [unnegate(t) if self._may_deny(t) else "" for t in texts]
        scored = classifier.scores(texts + [d for d in denials if d])
        own, flipped = scored[: len(texts)], iter(scored[len(texts) :])
        if self._swap is not None:  # the same harm said of another group (groupswap.py)
            own = self._swap.raised(
                classifier.scores, texts, own, below=self.config.threshold, skip=[bool(d) for d in denials]
            )
        for text, (probability, category), denial in zip(texts, own, denials, strict=True):
            if denial and next(flipped)[0] > probability - self.config.denial_margin:
                continue  # negation did not make it clearly worse: it may deny harm, leave it to the rules
            if denial and self._context.denies_insult(text):
                continue  # "Women are not objects": the embedding barely sees the "not"; the rules judge it
            if probability < self.config.thresholds.get(category, self.config.threshold):
                continue
            if self._anchored(category, text) and not classifier.contrasted(text):
                return category
        return None

    def _judges(self, unit: Unit) -> bool:
        """Whether this tier embeds the unit: a sentence, or a clause after a sentence whose negation may deny
        harm. Such a sentence is left to the rules whole ("There's no way I'd want to see X suffer"), so what
        follows the denial ("..., they deserve much worse") is judged here on its own, unless it denies too."""
        if not self.wants(unit) or self._context.is_counter_speech(unit):
            return False
        if unit.within is None:
            return True
        return self._may_deny(unit.within.plain) and not self._context.is_negated(unit.plain)

    def _readings(self, unit: Unit) -> tuple[str, ...]:
        """What the tier embeds of a unit: as written and with "they" resolved ("they are all thieves" after
        "I've met immigrants"); only resolved where "they" stands for the people who said something
        (pronouns.py: "They are wrong." after "Critics of X say ..." reads "critics are wrong."), as the bare
        "they" reads as said of a group."""
        if unit.text != unit.plain and self._groupre is not None and not self._groupre.search(unit.text):
            return (unit.text,)
        return (unit.plain, unit.text)

    def _may_deny(self, text: str) -> bool:
        """Whether the unit's negation may deny harm: it stands over a harm word, or the unit opens by
        denying what follows ("It's not true that ...")."""
        if not self._context.is_negated(text):
            return False
        if self._negated_harm is None:
            return True
        return bool(self._negated_harm.search(text) or self._context.denial.search(text))

    def _unsworn(self, text: str) -> str:
        """The unit without its swear words: what is said, not how loudly ("Are you fucking kidding me?"
        sat next to the harassment examples, which swear at "you"); swearing has its own tier."""
        return " ".join(self._swearing.sub(" ", text).split()) if self._swearing is not None else text

    def _anchored(self, category: str, text: str) -> bool:
        anchor = self._anchors.get(category)
        if anchor is None:
            return True
        # "kill the cron job": the kill is a process's, no anchor of harm
        named = self._inert.sub(" ", text) if self._inert is not None else text
        return bool(anchor.search(named))
