"""The rails' YAML is refused when a key is written twice, and word lists mean the same in any order."""

import shutil
from pathlib import Path

import pytest

from tests.support.paths import RAILS_DIR
from webapp.guard.moderation.config import ModerationConfig
from webapp.guard.moderation.corpus import load_example_file, load_templates
from webapp.guard.moderation.lexicon import compile_lexicon
from webapp.guard.rails import Guard
from webapp.guard.yamlfile import BooleanWordError, DuplicateKeyError, load_text, load_yaml


def test_a_key_written_twice_is_refused_with_the_file_the_key_and_both_lines(tmp_path: Path):
    path = tmp_path / "lists.yml"
    path.write_text("lexicon:\n  group: [jews]\n  dehumanising: [vermin]\n  group: [gays]\n")
    with pytest.raises(DuplicateKeyError) as caught:
        load_yaml(path)
    assert str(caught.value) == f"{path}: line 4: key 'group' is written twice (first on line 2)"
    assert (caught.value.key, caught.value.source) == ("group", str(path))


def test_a_duplicate_deep_inside_a_list_of_mappings_is_found():
    text = "categories:\n  - name: threats\n    reason: a\n    name: hate\n"
    with pytest.raises(DuplicateKeyError, match="line 4: key 'name'"):
        load_text(text)


def test_the_same_key_in_two_mappings_and_a_merge_key_are_fine():
    text = "base: &b {x: 1}\none: {x: 2}\ntwo:\n  <<: *b\n  x: 3\n"
    assert load_text(text) == {"base": {"x": 1}, "one": {"x": 2}, "two": {"x": 3}}


@pytest.mark.parametrize("name", ["moderation_examples.yml", "moderation_templates.yml"])
def test_the_moderation_data_files_refuse_a_category_written_twice(tmp_path: Path, name: str):
    """A category written again lower down replaced the first one's examples without a word."""
    path = tmp_path / name
    section = "harmful:\n  threats:\n    - I will hurt you.\n  threats:\n    - I will find you.\n"
    path.write_text(section if name == "moderation_examples.yml" else "groups: []\n" + section)
    with pytest.raises(DuplicateKeyError, match=f"{name}: line \\d+: key 'threats'"):
        if name == "moderation_examples.yml":
            load_example_file(path)
        else:
            load_templates(path, "train")


def test_the_shipped_rails_files_have_no_key_written_twice_nor_a_word_read_as_a_boolean():
    paths = sorted(RAILS_DIR.glob("*.y*ml"))
    assert len(paths) > 10
    for path in paths:
        assert load_yaml(path) is not None, path


@pytest.mark.parametrize("word", ["no", "yes", "on", "off", "No", "OFF"])
def test_a_bare_yaml_boolean_word_is_refused_with_the_file_and_line(word: str):
    """YAML 1.1 reads them as False/True: the language lists' "no", "on", "off" and "yes" never matched."""
    with pytest.raises(BooleanWordError) as caught:
        load_text(f"english: [the, and,\n  {word}, way]\n", "lists.yml")
    assert str(caught.value).startswith(f"lists.yml: line 2: {word!r} is read as a boolean: quote it")


def test_a_quoted_word_and_a_setting_written_true_or_false_are_read():
    assert load_text("words: [the, 'no', \"off\"]\nenabled: true\nstrict: False\n") == {
        "words": ["the", "no", "off"],
        "enabled": True,
        "strict": False,
    }


def test_the_guard_refuses_a_config_with_a_boolean_written_as_a_word(tmp_path: Path):
    target = tmp_path / "rails"
    shutil.copytree(RAILS_DIR, target, ignore=shutil.ignore_patterns("__pycache__"))
    config = target / "config.yml"
    text = config.read_text()
    assert "\n  allow_http: false\n" in text
    config.write_text(text.replace("\n  allow_http: false\n", "\n  allow_http: no\n"))
    with pytest.raises(BooleanWordError, match="config.yml: line \\d+: 'no' is read as a boolean"):
        Guard.from_dir(target)


@pytest.mark.parametrize("word", [None, 511, 1.5, True])
def test_a_word_list_holding_anything_but_text_is_refused(word: object):
    """An empty item is null and a bare 0777 is 511: the word written there would never be matched."""
    with pytest.raises(ValueError, match=r"word list \{insult\} holds .*, not a word: quote it"):
        compile_lexicon({"insult": ["rat", word]})


def test_the_guard_refuses_a_config_with_a_key_written_twice(tmp_path: Path):
    target = tmp_path / "rails"
    shutil.copytree(RAILS_DIR, target, ignore=shutil.ignore_patterns("__pycache__"))
    config = target / "config.yml"
    text = config.read_text()
    assert "\n  allow_http: false\n" in text
    config.write_text(text.replace("\n  allow_http: false\n", "\n  allow_http: false\n  allow_http: true\n"))
    with pytest.raises(DuplicateKeyError, match="config.yml: line \\d+: key 'allow_http'"):
        Guard.from_dir(target)


def test_a_word_list_may_name_a_list_written_below_it():
    assert compile_lexicon({"insult": ["{animal}s?"], "animal": ["rat", "pig"]}) == {
        "insult": "(?:rat|pig)s?",
        "animal": "rat|pig",
    }


def test_the_shipped_lexicon_means_the_same_sorted_reversed_or_as_written():
    written = load_yaml(RAILS_DIR / "config.yml")["custom_data"]["moderation"]
    as_written = ModerationConfig.from_mapping(written)
    for order in (sorted, lambda names: sorted(names, reverse=True)):
        lists = written["lexicon"]
        resaved = {**written, "lexicon": {name: lists[name] for name in order(lists)}}
        assert ModerationConfig.from_mapping(resaved).lexicon == as_written.lexicon
        assert ModerationConfig.from_mapping(resaved).categories == as_written.categories


@pytest.mark.parametrize(
    ("lists", "message"),
    [
        (
            {"insult": "{animl}", "animal": "rat"},
            r"word list \{insult\} names an unknown word list \{animl\}",
        ),
        ({"a": "{b}|x", "b": "{a}|y"}, r"word list \{a\} names itself: \{a\} -> \{b\} -> \{a\}"),
        ({"a": "x|{a}"}, r"word list \{a\} names itself: \{a\} -> \{a\}"),
    ],
)
def test_a_word_list_naming_an_unknown_list_or_itself_is_a_clear_error(lists, message):
    with pytest.raises(ValueError, match=message):
        compile_lexicon(lists)
