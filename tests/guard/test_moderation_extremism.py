"""Violent extremism and violent speech without a slur (rails/moderation_extremism.yml): threats of mass
violence against places, praise of attackers, calls for genocide, harm wished on a person, sexual violence,
doxxing, supremacy claims, slogans and number codes, denial with blame. Every text of the studied corpus is
judged whole and streamed word by word through the output filter, beside its look-alikes (reports, history,
counter-speech, drug slang, games, medicine, numbers); and the rails file's loading is checked on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.support.moderation import (
    assert_blocked_whole_and_streamed,
    assert_passes_whole_and_streamed,
)
from tests.support.paths import RAILS_DIR
from webapp.guard.moderation import ModerationConfig
from webapp.guard.yamlfile import load_yaml

CORPUS = load_yaml(RAILS_DIR / "moderation_extremism_dev.yaml")
# Blocked by the config's older threat rules before this file existed; not this file's shapes.
OLDER_FALSE_BLOCKS = {
    "No one deserves to be raped, ever.": "a negated 'deserves to be raped' read as the harm by an older reading",
    "The final solution was the Nazi plan to murder every Jew in Europe.": "'murder every Jew' reported as history",
}


def _texts(verdict: str) -> list[str]:
    return [text for texts in CORPUS[verdict].values() for text in texts]


def _with_known(texts: list[str]) -> list[object]:
    return [
        pytest.param(t, marks=pytest.mark.xfail(strict=True, reason=OLDER_FALSE_BLOCKS[t]))
        if t in OLDER_FALSE_BLOCKS
        else t
        for t in texts
    ]


@pytest.mark.parametrize("text", _texts("block"))
async def test_extremist_and_violent_speech_is_blocked_whole_and_streamed(checks, text):
    await assert_blocked_whole_and_streamed(checks, text)


@pytest.mark.parametrize("text", _with_known(_texts("pass")))
async def test_its_reports_history_counter_speech_and_homonyms_pass(checks, text):
    await assert_passes_whole_and_streamed(checks, text)


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("Someone should bomb that mosque.", "threats"),
        ("Brenton Tarrant did nothing wrong.", "violent_extremism"),
        ("I hope you get cancer and die.", "harm_wishes"),
        ("Let's dox her and send her address to everyone.", "doxxing"),
        ("1488", "extremist_slogans"),
        ("Go full Tarrant.", "violent_extremism"),
        ("Kill them all, or as the French say, 'tuez-les tous'.", "threats"),
    ],
)
def test_each_shape_names_its_own_reason(moderator, text, rule):
    finding = moderator.check(text, "output")
    assert finding is not None and finding.rule == rule


def _category_file(tmp_path: Path, content: dict[str, object]) -> None:
    (tmp_path / "extra.yml").write_text(yaml.safe_dump(content), encoding="utf-8")


def test_a_category_file_adds_its_word_lists_and_rules_after_the_configs_own(tmp_path):
    extra = {
        "lexicon": {"place": ["depot|quay"]},
        "categories": [{"name": "threats", "reason": "r2", "patterns": ["\\bbomb the (?:{place})\\b"]}],
    }
    _category_file(tmp_path, extra)
    own = {
        "category_files": ["extra.yml"],
        "lexicon": {"group": ["gulls"]},
        "categories": [{"name": "hate", "reason": "r1", "patterns": ["\\b(?:{group}) are bad\\b"]}],
    }
    config = ModerationConfig.from_mapping(own, rails_dir=tmp_path)
    assert [rule.reason for rule in config.categories] == ["r1", "r2"]
    assert config.lexicon["place"] == "depot|quay" and config.lexicon["group"] == "gulls"
    assert config.categories[1].matches("we will bomb the quay")


def test_a_word_list_written_in_two_files_is_refused(tmp_path):
    _category_file(tmp_path, {"lexicon": {"group": ["gulls"]}})
    own = {"category_files": ["extra.yml"], "lexicon": {"group": ["terns"]}}
    with pytest.raises(ValueError, match="group"):
        ModerationConfig.from_mapping(own, rails_dir=tmp_path)


def test_the_app_config_reads_the_extremism_file_from_its_own_rails_directory():
    moderation = load_yaml(RAILS_DIR / "config.yml")["custom_data"]["moderation"]
    assert "moderation_extremism.yml" in moderation["category_files"]
    shipped = ModerationConfig.from_mapping(moderation)  # no rails_dir: the app's own rails
    names = {rule.name for rule in shipped.categories}
    assert {"violent_extremism", "harm_wishes", "sexual_violence", "doxxing", "extremist_slogans"} <= names
    assert "attacker" in shipped.lexicon
