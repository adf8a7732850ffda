"""The studied corpora's hateful texts as more harmful sentences for the semantic classifier's fit.

The examples and templates hold a few hundred phrasings of harm; the studied (``-dev``) corpora hold about a
thousand more, written over the rounds from the public descriptions of hate-speech functionalities. Fitted
as harmful they move the line between harmful and allowed towards phrasings no example spells.

A line with a ``{group}`` placeholder is filled once, with the file's groups taken in turn, not once per
group: the fit needs the phrasing more than every group, and every sentence embedded costs start-up CPU on
a fresh install (the vectors are cached after). Each line fitted a second time with its group said as
"they"/"them" lost more legitimate texts than it gained hateful ones (docs/moderation.md), so it is not.

Their legitimate texts are not fitted: most are counter-speech that quotes the hate, and fitted as allowed
they taught the classifier that hate is fine. The look-alikes among them (positive, neutral, reclaimed) are
the sentences a unit about to be blocked is compared with instead (contrasts.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from webapp.guard.yamlfile import load_yaml

_PLACEHOLDER = re.compile(r"\{(group|one|noun)\}")


def studied_harmful(paths: Sequence[Path]) -> list[str]:
    """Every studied corpus's "block" lines, each filled with one group (the file's groups in turn)."""
    return _lines({path: None for path in paths}, "block")


def studied_legitimate(categories: Mapping[Path, Sequence[str]]) -> list[str]:
    """The "pass" lines of the named categories of each studied corpus, filled the same way: the legitimate
    look-alikes (positive, neutral, reclaimed), not the counter-speech that quotes the hate."""
    return _lines({path: set(names) for path, names in categories.items()}, "pass")


def _lines(categories: Mapping[Path, set[str] | None], side: str) -> list[str]:
    texts: list[str] = []
    for path, wanted in categories.items():
        data: Mapping[str, Any] = load_yaml(path) or {}
        groups: Sequence[Mapping[str, str]] = data.get("groups") or [{}]
        chosen = [items for name, items in (data.get(side) or {}).items() if wanted is None or name in wanted]
        lines = [str(t) for items in chosen for t in items or ()]
        texts += [_filled(line, groups[i % len(groups)]) for i, line in enumerate(lines)]
    return list(dict.fromkeys(texts))


def _filled(line: str, group: Mapping[str, str]) -> str:
    if not _PLACEHOLDER.search(line):
        return line
    text = _PLACEHOLDER.sub(lambda m: group[m.group(1)], line)
    return text[:1].upper() + text[1:]


def studied_labelled(paths: Sequence[Path]) -> list[tuple[str, bool]]:
    """Every line of each corpus with its label (harmful or not), filled with every group of its file: the
    tuned tier's training data, where a fine-tuned encoder learns from the legitimate look-alikes too (the
    counter-speech that quotes hate among them) what a frozen one cannot tell apart."""
    rows: list[tuple[str, bool]] = []
    for path in paths:
        data: Mapping[str, Any] = load_yaml(path) or {}
        groups: Sequence[Mapping[str, str]] = data.get("groups") or [{}]
        for side, harmful in (("block", True), ("pass", False)):
            lines = [str(t) for items in (data.get(side) or {}).values() for t in items or ()]
            for line in lines:
                filled = [_filled(line, g) for g in groups] if _PLACEHOLDER.search(line) else [line]
                rows += [(text, harmful) for text in filled]
    return rows
