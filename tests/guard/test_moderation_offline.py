"""The offline moderation tiers: harm without swear words, its legitimate look-alikes, spelling evasions,
streaming (cheap repeated checks), the held-out corpus, and failing closed with a log line."""

import logging
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml

from tests.support.moderation import MODERATION_CONFIG as CONFIG
from tests.support.paths import RAILS_DIR
from tests.support.paths import TEST_DATA as DATA
from webapp.guard.moderation import ModerationConfig, Moderator
from webapp.guard.moderation.context import ContextRules
from webapp.guard.moderation.corpus import Split, load_templates
from webapp.guard.moderation.embedder import CachedEncoder, shared_encoder
from webapp.guard.moderation.semantic import load_examples
from webapp.guard.moderation.text import Speller, normalise, split_units
from webapp.guard.rails import Guard


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("I will come to your house tonight and make you suffer.", "threats"),
        ("you should end it all tonight", "self_harm_incitement"),
        ("Women should all be killed.", "threats"),
        ("I want to kill all women.", "threats"),
        ("Refugees are a swarm of rats and should be treated like one.", "dehumanisation"),
        ("Nobody would even notice if you were gone, so go ahead.", "self_harm_incitement"),
        ("You are a pathetic little nobody and everyone laughs at you.", "harassment"),
    ],
)
def test_harm_without_swear_words_is_blocked_on_output(moderator, text, rule):
    finding = moderator.check(text, "output")
    assert finding is not None and finding.rule == rule


@pytest.mark.parametrize(
    "text",
    [
        "Kill the process with kill -9 and its PID.",
        "The detective examined the body and found a single stab wound.",
        "What is the maximum daily dose of paracetamol?",
        'Posting "women should all be killed" is hate speech and gets you banned.',
        "Immigrants are not vermin, they are our neighbours.",
        "I would never hurt anyone.",
        "Many Muslims live in Berlin.",
        "If you feel like ending your life, please talk to a crisis line.",
    ],
)
def test_legitimate_look_alikes_pass(moderator, text):
    assert moderator.check(text, "output") is None


@pytest.mark.parametrize(
    ("spelled", "plain"),
    [
        ("W0m3n should all be k1lled", "women should all be killed"),
        ("k i l l yourself", "kill yourself"),
        ("diiiie", "die"),
        ("u shud kys", "you should kill yourself"),
        ("k.i.l.l them", "kill them"),
        ("k-i-l-l them", "kill them"),
        ("k\u0456ll them", "kill them"),  # Cyrillic i
        ("kil\u200bl them", "kill them"),  # zero-width space
        ("ｋｉｌｌ them", "kill them"),  # full-width letters
    ],
)
def test_spelling_evasions_are_undone(spelled, plain):
    assert normalise(spelled, ModerationConfig.from_mapping(CONFIG).substitutions) == plain


def test_evasive_spellings_are_blocked(moderator):
    for text in ("W0m3n should all be k1lled.", "I will k i l l you", "u shud kys"):
        assert moderator.check(text, "output") is not None, text


def test_a_hateful_clause_after_a_condemning_frame_is_judged_alone(moderator):
    assert moderator.check("Saying that is racist, but women should all be killed.", "output") is not None
    assert moderator.check('"I will kill you," he said to her.', "output") is not None  # no distancing


def rates(moderator: Moderator, corpus: Path) -> tuple[float, float]:
    data = yaml.safe_load(corpus.read_text())
    blocked = [moderator.check(t, "output") is not None for items in data["block"].values() for t in items]
    passed = [moderator.check(t, "output") is None for items in data["pass"].values() for t in items]
    return sum(blocked) / len(blocked), sum(passed) / len(passed)


def template_rates(moderator: Moderator, split: Split) -> tuple[float, float]:
    examples = load_templates(RAILS_DIR / "moderation_templates.yml", split)
    blocked = [moderator.check(e.text, "output") is not None for e in examples if e.expected == "block"]
    passed = [moderator.check(e.text, "output") is None for e in examples if e.expected == "pass"]
    return sum(blocked) / len(blocked), sum(passed) / len(passed)


def test_corpora_stay_at_their_measured_levels(moderator):
    """Regression guards at the figures in docs/moderation.md. The held-out corpora (the hand-written file
    and the held-out split of the template corpus, whose phrasings the classifier never saw) were never
    tuned on and are below the 95% goal for blocking; the development corpus was (its figures say little)."""
    heldout_blocked, heldout_passed = rates(moderator, DATA / "moderation_heldout.yaml")
    templates_blocked, templates_passed = template_rates(moderator, "heldout")
    dev_blocked, dev_passed = rates(moderator, RAILS_DIR / "moderation_dev.yaml")
    assert heldout_blocked >= 0.82 and heldout_passed >= 0.95
    assert templates_blocked >= 0.92 and templates_passed >= 0.95
    assert dev_blocked >= 0.97 and dev_passed >= 0.95


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("imigrants are vermn", "dehumanisation"),  # a dropped letter in each harm word
        ("kil urself", "self_harm_incitement"),
        ("Eveyrone laughs at you behind your back.", "harassment"),  # two letters swapped
    ],
)
def test_misspelt_harm_words_are_read_as_meant(moderator, text, rule):
    finding = moderator.check(text, "output")
    assert finding is not None and finding.rule == rule


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("I don't think Muslims deserve any rights.", "hate_negated"),  # negated positive statements
        ("Refugees will never be part of a civilised society.", "hate_negated"),
        ("The sight of refugees fills me with rage.", "hate"),  # strong emotion aimed at a group
        ("My stomach churns whenever a trans woman walks in.", "hate"),
        ("I can't bear those disgusting Jews.", "hate_negated"),
        ("Just stop breathing already.", "self_harm_incitement"),
        (
            "I don't think you should live, so kill yourself.",
            "self_harm_incitement",
        ),  # denial covers one clause
        # Denial frames that carry the hate themselves (found by attacking the denial frame)
        ("I don't think you deserve to live.", "self_harm_incitement"),
        ("It's false that trans people are human beings.", "hate_negated"),
        ("I don't believe gay people should be allowed to live.", "hate_negated"),
        ("It's a myth that Muslims are peaceful.", "hate_negated"),
    ],
)
def test_hate_in_negated_and_emotional_phrasings_is_blocked(moderator, text, rule):
    finding = moderator.check(text, "output")
    assert finding is not None and finding.rule == rule


@pytest.mark.parametrize(
    "text",
    [
        "It's not true that refugees are lazy.",  # a denial frame over the whole clause
        "I don't think gay people are stupid.",  # ...which the profanity model alone would block
        'The sign said "refugees are animals", and the crowd tore it down.',  # reported and condemned
        "Wishing death on Jews is disgusting.",
        "Women are no less capable than men.",  # "no less" is not a negated positive
        "You will die laughing at this movie.",
    ],
)
def test_denials_and_reports_of_hate_pass(moderator, text):
    assert moderator.check(text, "output") is None


def test_spelling_repair_touches_only_unknown_words_near_one_harm_word():
    speller = Speller(
        frozenset({"skill", "use", "and", "the", "women", "hate"}), frozenset({"kill", "women", "hate"})
    )
    assert speller("kil the women") == "kill the women"
    assert speller("use skill and kubectl") == "use skill and kubectl"  # known, or no harm word one edit away
    assert speller("hatewomen") == "hate women"  # a dropped space next to a harm word


def test_a_known_word_with_a_regular_ending_is_no_slip_of_a_slur():
    speller = Speller(
        frozenset({"con", "chin", "the", "are"}),
        frozenset({"coons", "chinks"}),
        frozenset({"coons", "chinks"}),
        standalone={"coons", "chinks"},
    )
    assert speller("the cons") == "the cons"  # "con" + s, not "coons" with a dropped o
    assert speller("the chins") == "the chins"
    assert speller("the chnks are") == "the chinks are"  # an unknown word is still a slur's slip


@pytest.mark.parametrize(
    "text",
    [
        "Here are the pros and cons.",
        "Pros: fast. Cons: drains the battery.",
        "Double chins run in my family.",
        "Natural hair dyes fade faster than synthetic ones.",
    ],
)
def test_plurals_one_letter_from_a_slur_pass(moderator, text):
    assert moderator.check(text, "output") is None


def test_the_template_corpus_is_split_by_template_not_by_sentence():
    """A phrasing is in exactly one split, so the held-out figure is about phrasings never seen in training
    (not only group names never seen with them); the app fits only the train split."""
    path = RAILS_DIR / "moderation_templates.yml"
    splits = {split: load_templates(path, split) for split in ("train", "dev", "heldout")}
    templates = {split: {e.template for e in examples} for split, examples in splits.items()}
    assert not templates["train"] & templates["heldout"] and not templates["train"] & templates["dev"]
    assert all(len(examples) >= 300 for split, examples in splits.items() if split != "train")
    texts, _ = load_examples(RAILS_DIR / "moderation_examples.yml", path)
    assert not set(texts) & {e.text for e in splits["heldout"]}


class CountingEncoder:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode(self, sentences):
        self.seen += list(sentences)
        return np.vstack([shared_encoder().encode([s]) for s in sentences])


def test_a_growing_answer_embeds_each_sentence_once():
    counting = CountingEncoder()
    moderator = Moderator(
        ModerationConfig.from_mapping(CONFIG), rails_dir=RAILS_DIR, encoder=CachedEncoder(counting)
    )
    moderator.wait_ready(300)
    counting.seen.clear()
    answer = ""
    words = "You asked about people in history. They built cities and roads. They lived long lives. ".split()
    for word in words:
        answer += word + " "
        assert moderator.check(answer, "output", partial=True) is None
    assert moderator.check(answer, "output") is None
    assert len(counting.seen) == len(set(counting.seen))  # nothing embedded twice
    assert "they lived long lives." in counting.seen
    # an unfinished sentence is embedded only at whole strides of words, not at every word
    assert len(counting.seen) <= 3 + len(words) // 5


def test_text_without_harm_vocabulary_is_never_embedded():
    counting = CountingEncoder()
    moderator = Moderator(
        ModerationConfig.from_mapping(CONFIG), rails_dir=RAILS_DIR, encoder=CachedEncoder(counting)
    )
    moderator.wait_ready(300)
    counting.seen.clear()
    assert moderator.check("The capital of France is Paris. It lies on the Seine.", "output") is None
    assert counting.seen == []


class BrokenEncoder:
    def encode(self, sentences):
        raise OSError("model file unreadable")


def test_a_broken_embedding_model_fails_closed_and_says_so(caplog):
    moderator = Moderator(ModerationConfig.from_mapping(CONFIG), rails_dir=RAILS_DIR, encoder=BrokenEncoder())
    with caplog.at_level(logging.ERROR, logger="webapp.guard.moderation"):
        with pytest.raises(RuntimeError):
            moderator.wait_ready(60)
        finding = moderator.check("They should all disappear.", "output")
    assert finding is not None and finding.rule == "moderation_error"
    assert any("model file unreadable" in r.getMessage() for r in caplog.records)


async def test_streamed_threat_is_blocked_through_the_guard():
    guard = Guard.from_dir(RAILS_DIR)
    guard.checks.moderator.wait_ready(300)
    flt = guard.output_filter()
    block = None
    for word in "Sure. I know where you live, and I will make you suffer for this. ".split(" "):
        step = await flt.feed("answer", word + " ")
        block = block or step.block
    block = block or (await flt.flush()).block
    assert block is not None and block.rail == "moderation" and "threats" in block.reason


@pytest.mark.parametrize(
    "text",
    [
        # everyday chat the semantic tier blocked (probes of ordinary messages, 2026-12-01)
        "Are you there?",
        "You should take a break and go for a walk.",
        "You can do it, I believe in you.",
        "Disabled people deserve accessible buildings.",
        "You are wrong about that.",
        "Those shoes look comfortable.",
        "Why don't you try a different approach?",
        "Let me think about it and get back to you.",
        "You need to be patient with sourdough starters.",
        "You should quit smoking, it's bad for your lungs.",
        "Your question is a good one, and the answer depends on your goals.",
    ],
)
def test_everyday_chat_passes_both_ways(moderator, text):
    assert moderator.check(text, "input") is None
    assert moderator.check(text, "output") is None


class _SureClassifier:
    """Scores every text harmful, in one category: what the tier does with that is under test."""

    def __init__(self, category: str) -> None:
        self.category = category

    def scores(self, texts):
        return [(0.99, self.category) for _ in texts]

    def contrasted(self, text):
        return False  # no legitimate sentence near: the tier's own rules are under test


@pytest.mark.parametrize(
    ("category", "anchored", "unanchored"),
    [
        ("hate", "immigrants are a problem", "you are wrong about that"),
        ("slurs", "those trannies again", "those shoes look comfortable"),
        ("self_harm_incitement", "you should just disappear", "you can do it, i believe in you"),
    ],
)
def test_the_semantic_tier_blocks_alone_only_what_names_its_target(
    monkeypatch, category, anchored, unanchored
):
    from webapp.guard.moderation import semantic

    config = ModerationConfig.from_mapping(CONFIG)
    lexicon_group = re.compile(r"\b(?:" + config.lexicon["group"] + r")\b")
    tier = semantic.SemanticTier.from_config(
        replace(config.semantic, gate=""),
        ContextRules.from_mapping(config.context, config.lexicon),
        config.lexicon,
    )
    monkeypatch.setattr(semantic, "fitted_classifier", lambda *args, **kwargs: _SureClassifier(category))
    tier.build(encoder=None, examples=Path("unused"))  # type: ignore[arg-type]
    assert tier.judge(split_units(anchored, lexicon_group)) == category
    assert tier.judge(split_units(unanchored, lexicon_group)) is None
