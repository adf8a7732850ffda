"""The literal look-up before each category rule's regex (``literals.py``) may skip a regex only where it
cannot match: every match holds a string of each set the analysis derived."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.moderation import MODERATION_CONFIG
from tests.support.paths import RAILS_DIR
from webapp.guard.moderation import ModerationConfig, Moderator
from webapp.guard.moderation.literals import (
    Needs,
    Probe,
    Scanner,
    current_scanner,
    pattern_needs,
    required_sets,
)
from webapp.guard.moderation.text import normalise
from webapp.guard.yamlfile import load_yaml

DATA = Path(__file__).resolve().parent.parent / "data"


def _corpus_files() -> list[Path]:
    """The evaluation corpora, and the studied ones that ship with the rails (the classifier fits them)."""
    return sorted([*DATA.glob("moderation_*.yaml"), *RAILS_DIR.glob("moderation_*.yaml")])


@pytest.mark.parametrize(
    ("pattern", "sets"),
    [
        (r"\bcolou?r\b", [{"color", "colour"}]),
        (r"kill (?:all )?them", [{"kill them", "kill all them"}]),
        (r"(?:jews?|muslims?) are", [{"jew are", "jews are", "muslim are", "muslims are"}]),
        (r"how\s*cut", [{"cut"}, {"how"}]),  # "\s*" is any run of spaces, not none
        (r"\w+ing\b", [{"ing"}]),
        (r"(?:ab|cd)*ef", [{"ef"}]),
        (r"x{2,}yz", [{"x"}, {"yz"}]),
        (r"(?:vermin|\w+) here", [{" here"}]),  # one alternative needs nothing: the branch needs nothing
        (r"[a-z]+ (?:pigs|rats)", [{" pigs", " rats"}]),
    ],
)
def test_what_every_match_needs(pattern: str, sets: list[set[str]]) -> None:
    found = required_sets(re.compile(pattern))
    assert sorted(map(sorted, found)) == sorted(map(sorted, sets))


@pytest.mark.parametrize("pattern", [r"(?i:vermin)", r"vermin"])
def test_patterns_whose_literals_match_other_cases_are_never_filtered(pattern: str) -> None:
    flags = re.IGNORECASE if pattern == "vermin" else 0
    assert required_sets(re.compile(pattern, flags)) == ()


def test_a_skipped_rule_could_not_have_matched_any_corpus_text() -> None:
    """Soundness on the shipped rules and every labelled text (and each of its prefixes a stream shows):
    wherever a rule's regex matches, the look-up lets it run."""
    config = ModerationConfig.from_mapping(MODERATION_CONFIG)
    texts = []
    for path in _corpus_files():
        texts += [t for t in _strings(load_yaml(path)) if "{" not in t]
    assert len(texts) > 1000
    runs = [(run.lower, pattern_needs(run.lower)) for rule in config.categories for run in rule.patterns]
    assert sum(bool(needs) for _, needs in runs) > len(runs) // 2  # the filter is in use
    checked = 0
    for text in texts:
        normal = normalise(text, config.substitutions)
        for shown in {normal, normal[: len(normal) // 2]}:
            if not shown.isascii() or shown != shown.lower():
                continue
            probe = Probe(shown)
            for pattern, needs in runs:
                if needs and pattern.search(shown) is not None:
                    checked += 1
                    assert probe.may_match(needs), (pattern.pattern[:80], shown)
    assert checked > 100


def test_one_scan_finds_every_set_a_text_holds_overlaps_and_prefixes_included() -> None:
    """Every literal the text holds counts: overlapping ones, prefixes of a longer one and ones inside it."""
    sets = [frozenset(s) for s in ({"ab"}, {"abcd"}, {"bc", "zz"}, {"c"}, {"cd"}, {"x"})]
    scanner = Scanner([Needs(s, i) for i, s in enumerate(sets)])
    assert scanner.present("abce") == {0, 2, 3}
    assert scanner.present("abcd") == {0, 1, 2, 3, 4}
    assert scanner.present("zzz") == {2}
    assert scanner.present("") == frozenset()


def test_the_scan_answers_as_each_set_asked_alone_on_corpus_texts() -> None:
    ModerationConfig.from_mapping(MODERATION_CONFIG)  # interns the shipped rules' sets
    scanner = current_scanner()
    needs = [n for n in _interned() if n.index < scanner.count]
    assert len(needs) > 200
    texts = [normalise(t, {}) for t in _corpus_texts()[::7]]
    texts = [t for t in texts if t.isascii() and t == t.lower()]
    found = 0
    for text in texts:
        present = scanner.present(text)
        for need in needs:
            assert (need.index in present) == need.found_in(Probe(text)), (sorted(need.strings)[:5], text)
        found += len(present)
    assert found > 1000


def test_a_probe_without_the_scan_answers_the_same() -> None:
    config = ModerationConfig.from_mapping(MODERATION_CONFIG)
    required = [needs for rule in config.categories for needs in rule._needs]
    for text in [normalise(t, config.substitutions) for t in _corpus_texts()[::29]]:
        scanned, asked = Probe(text), Probe(text, scan=False)
        assert [scanned.may_match(r) for r in required] == [asked.may_match(r) for r in required]


def test_a_moderator_has_its_scanner_before_its_first_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Made on first use, the scanner over every rule cost the first check after a start ~0.3 s of CPU on
    the event loop (the first chatter's turn, and every stream beside it, waited for it)."""
    from webapp.guard.moderation import literals

    built: list[int] = []
    build = Scanner.__init__

    def counted(self: Scanner, needs: list[Needs]) -> None:
        built.append(len(needs))
        build(self, needs)

    monkeypatch.setattr(literals, "_scanner", Scanner([]))  # as in a new process
    monkeypatch.setattr(Scanner, "__init__", counted)
    config = ModerationConfig.from_mapping(
        {**MODERATION_CONFIG, "semantic": {"enabled": False}, "tuned": {"enabled": False}}
    )
    moderator = Moderator(config, rails_dir=RAILS_DIR)
    assert built and built[-1] == len(literals._INTERNED)
    before = len(built)
    assert moderator.check("Lyon is a fine city for a weekend", "output", partial=True) is None
    assert len(built) == before


def _interned() -> list[Needs]:
    from webapp.guard.moderation import literals

    return list(literals._INTERNED.values())


def _corpus_texts() -> list[str]:
    texts = []
    for path in _corpus_files():
        texts += [t for t in _strings(load_yaml(path)) if "{" not in t]
    return texts


def _strings(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for value in node.values() for s in _strings(value)]
    if isinstance(node, list):
        return [s for value in node for s in _strings(value)]
    return []
