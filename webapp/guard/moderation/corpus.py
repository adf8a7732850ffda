"""The template corpus: phrasings of harm and of its look-alikes, expanded over target groups and split.

A template ("{group} are vermin.") is one phrasing; expanding it over nine groups gives nine sentences that
differ only in the group. Splitting those sentences at random would put the same phrasing in training and
in the held-out set, and the held-out figure would then only measure new group names. So each TEMPLATE is
assigned to one split by a hash of its text, fixed before any measurement and never chosen by hand: the
classifier is fitted on the train split, thresholds are studied on dev, and the held-out split reports how
the rail does on phrasings it has never seen.

Spelling variants (HateCheck's last functionalities: a dropped or swapped letter, a missing word boundary,
letters spaced out, leetspeak) are derived from each harmful sentence the same deterministic way.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from webapp.guard.yamlfile import load_yaml

Split = Literal["train", "dev", "heldout"]
TRAIN_GROUPS_PER_TEMPLATE = 3  # the fit needs the phrasing more than every group (and start-up stays short)
_PLACEHOLDER = re.compile(r"\{(group|one|adj)\}")


@dataclass(frozen=True)
class Example:
    expected: Literal["block", "pass"]
    category: str
    text: str
    template: str


def split_of(template: str) -> Split:
    """60% train, 20% dev, 20% held-out, by a hash of the template's text (stable across runs and machines)."""
    bucket = int(hashlib.sha256(template.encode("utf-8")).hexdigest(), 16) % 10
    return "train" if bucket < 6 else "dev" if bucket < 8 else "heldout"


def load_templates(path: Path, split: Split, *, all_groups: bool = True) -> list[Example]:
    """Every sentence of one split. ``all_groups=False`` expands a template with a few groups only.

    The train split also holds the file's ``train_only`` templates (never measured), and every harmful
    train sentence comes with a misspelt twin, so the classifier sees the evasions it is meant to catch
    (the dev and held-out splits keep one variant per template, as they were measured)."""
    data = load_yaml(path) or {}
    groups: list[Mapping[str, str]] = data.get("groups") or []
    sources = [(data, True)] + ([(data.get("train_only") or {}, False)] if split == "train" else [])
    examples: list[Example] = []
    for source, by_split in sources:
        for section, expected in (("harmful", "block"), ("allowed", "pass")):
            for category, templates in (source.get(section) or {}).items():
                for template in templates or ():
                    if by_split and split_of(template) != split:
                        continue
                    for text in _expand(str(template), groups, all_groups):
                        examples.append(Example(expected, str(category), text, template))  # type: ignore[arg-type]
    return examples + _variants(examples, every=split == "train")


def _variants(examples: list[Example], *, every: bool) -> list[Example]:
    """Misspelt twins of the harmful sentences: of each one (``every``), or of each template's first."""
    harmful = [e for e in examples if e.expected == "block" and e.category not in ("slurs", "profanity_hate")]
    if every:
        return [
            Example("block", "spelling_variants", misspell(e.text, anywhere=True), e.template)
            for e in harmful
        ]
    first_of_template = {e.template: e for e in reversed(harmful)}.values()
    return [Example("block", "spelling_variants", misspell(e.text), e.template) for e in first_of_template]


def _expand(template: str, groups: Sequence[Mapping[str, str]], all_groups: bool) -> Iterator[str]:
    if not _PLACEHOLDER.search(template):
        yield template
        return
    chosen: Sequence[Mapping[str, str]] = groups
    if not all_groups:
        start = int(hashlib.sha256(template.encode("utf-8")).hexdigest(), 16) % len(groups)
        chosen = [groups[(start + i) % len(groups)] for i in range(TRAIN_GROUPS_PER_TEMPLATE)]
    for group in chosen:
        text = _PLACEHOLDER.sub(lambda m, g=group: g[m.group(1)], template)  # type: ignore[misc]
        yield text[0].upper() + text[1:]


_LEET = str.maketrans({"a": "4", "e": "3", "i": "1", "o": "0", "s": "5"})


def misspell(text: str, *, anywhere: bool = False) -> str:
    """One of five evasions, applied to the longest word (or two words), chosen by a hash of the text.
    ``anywhere``: to a word of four letters or more chosen by the hash (the group's name as often as not)."""
    words = text.split(" ")
    digest = int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16)
    i = max(range(len(words)), key=lambda k: (len(words[k].strip(".,?!\"'")), -k))
    long_enough = [k for k, w in enumerate(words) if len(w.strip(".,?!\"'")) > 3]
    if anywhere and long_enough:
        i = long_enough[(digest // 5) % len(long_enough)]
    word = words[i]
    kind = digest % 5
    if kind == 0 and len(word) > 3:  # a dropped letter
        words[i] = word[: len(word) // 2] + word[len(word) // 2 + 1 :]
    elif kind == 1 and len(word) > 3:  # two letters swapped
        j = len(word) // 2
        words[i] = word[: j - 1] + word[j] + word[j - 1] + word[j + 1 :]
    elif kind == 2 and i + 1 < len(words):  # a missing word boundary
        words[i : i + 2] = [words[i] + words[i + 1]]
    elif kind == 3:  # letters spaced out
        words[i] = " ".join(word)
    else:
        words[i] = word.lower().translate(_LEET)
    return " ".join(words)


def load_example_file(path: Path) -> list[Example]:
    """``rails/moderation_examples.yml`` as examples (its sentences are all training data)."""
    data: Mapping[str, Any] = load_yaml(path) or {}
    expected = {"harmful": "block", "allowed": "pass"}
    return [
        Example(expected[section], str(category), str(text), str(text))  # type: ignore[arg-type]
        for section in ("harmful", "allowed")
        for category, items in (data.get(section) or {}).items()
        for text in items or ()
    ]


def vocabulary(examples: Sequence[Example]) -> tuple[frozenset[str], frozenset[str]]:
    """(every word of the examples, the words of their harmful sentences): the speller's known words and
    the harm words it may correct towards."""
    written = [e for e in examples if e.category != "spelling_variants"]
    words = [(e.expected, w) for e in written for w in re.findall(r"[a-z]{3,}", e.text.lower())]
    return frozenset(w for _, w in words), frozenset(w for expected, w in words if expected == "block")
