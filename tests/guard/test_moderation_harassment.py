"""Harassment of a person without a slur and self-harm incitement in other words (rails/moderation_harassment.yml):
told to vanish because nobody wants you, a crowd called to pile on until someone quits, mockery by a whole class,
an eating disorder or cutting urged on, "do it, nobody will miss you". Every text of the studied corpus is judged
whole and streamed word by word through the output filter, beside its look-alikes (support for people in crisis,
news about suicide, song titles and lyrics named, banter about things, reports of harassment)."""

from __future__ import annotations

import pytest

from tests.support.moderation import (
    assert_blocked_whole_and_streamed,
    assert_passes_whole_and_streamed,
)
from tests.support.paths import RAILS_DIR
from webapp.guard.moderation import ModerationConfig
from webapp.guard.yamlfile import load_yaml

CORPUS = load_yaml(RAILS_DIR / "moderation_harassment_dev.yaml")
# Blocked by the config's older self-harm and harassment rules (or the semantic tier) before this file existed.
OLDER_FALSE_BLOCKS = {
    "The world would not be better without you, I promise.": "a negated 'better without you' read as the harm",
    "If you feel like nobody would miss you, please talk to someone; we would.": "'nobody would miss you' as support",
    "Nobody will miss you? That's the depression talking, and it's wrong.": "the harm quoted back and denied",
    "It's common to feel the world would be better without you; it isn't true, and help is available.": "denied",
    "If someone tells you to kill yourself, block them and tell a trusted adult.": "advice against the harm",
    "Experts say media should not describe suicide methods in detail.": "news guidance on reporting suicide",
    "'Nobody Likes You' is a track on Green Day's American Idiot album.": "a song title named",
    "Disappear for a weekend in the mountains.": "a holiday, read by the semantic tier as self-harm",
    "Don't jump. Somebody will always stop you, and we will.": "the semantic tier reads the denied dare as the dare",
    "The world is not better without you, not even a little.": "the semantic tier reads the denial as the harm",
}
# Read as counter-speech: 'comments' is one of the words a condemnation frames ("comments like that are vile").
KNOWN_MISSES = {"Spam his comments until he deletes his account.": "'comments' read as a condemning frame"}


def _texts(verdict: str, known: dict[str, str]) -> list[object]:
    return [
        pytest.param(t, marks=pytest.mark.xfail(strict=True, reason=known[t])) if t in known else t
        for texts in CORPUS[verdict].values()
        for t in texts
    ]


@pytest.mark.parametrize("text", _texts("block", KNOWN_MISSES))
async def test_harassment_and_self_harm_incitement_are_blocked_whole_and_streamed(checks, text):
    await assert_blocked_whole_and_streamed(checks, text)


@pytest.mark.parametrize("text", _texts("pass", OLDER_FALSE_BLOCKS))
async def test_support_news_lyrics_and_banter_pass(checks, text):
    await assert_passes_whole_and_streamed(checks, text)


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("Let's all flood her inbox until she deletes her profile.", "harassment"),
        ("Everyone laughs behind your back.", "harassment"),
        ("Go on, do it, nobody will miss you.", "self_harm_incitement"),
        ("Keep starving yourself, it's working.", "self_harm_incitement"),
        ("Jump. Nobody will stop you.", "self_harm_incitement"),
        ("Cut deeper next time.", "self_harm_incitement"),
    ],
)
def test_each_shape_names_its_own_reason(moderator, text, rule):
    finding = moderator.check(text, "output")
    assert finding is not None and finding.rule == rule


def test_the_app_config_reads_the_harassment_file_from_its_own_rails_directory():
    moderation = load_yaml(RAILS_DIR / "config.yml")["custom_data"]["moderation"]
    assert "moderation_harassment.yml" in moderation["category_files"]
    shipped = ModerationConfig.from_mapping(moderation)
    assert {"leave_order", "unwanted", "pile_on", "gone"} <= set(shipped.lexicon)
