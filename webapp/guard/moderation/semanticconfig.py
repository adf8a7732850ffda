"""The semantic tier's settings, as the rails give them (``custom_data.moderation.semantic`` in config.yml).

Apart from the tier itself (semantic.py) so that the tier's module holds what a check does, and the list of
what can be set, with each default, reads in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SemanticConfig:
    enabled: bool = True
    examples: str = "moderation_examples.yml"  # relative to the rails directory
    templates: str = ""  # the template corpus, relative to the rails directory (its train split is fitted)
    threshold: float = 0.8  # probability of "harmful" at which this tier blocks on its own
    # category -> its own such probability, where the studied corpora put it elsewhere than ``threshold``
    thresholds: Mapping[str, float] = field(default_factory=dict)
    gate: str = ""  # regex (lexicon names allowed); empty: every unit is embedded
    denial_margin: float = 0.1  # a negated unit blocks only if it scores this much above its plain form
    stride_words: int = 5  # an unfinished sentence is embedded every this many words while it streams
    # category -> regex (lexicon names allowed) a unit must match for this tier to block it in that category
    # on its own: hate names a group (or a pronoun for one), incitement to self-harm names the harm.
    anchors: Mapping[str, str] = field(default_factory=dict)
    # regex (lexicon names allowed): a negation standing over harm, the only kind that may deny it; empty:
    # any negation may.
    negated_harm: str = ""
    swearing: str = ""  # regex (lexicon names allowed): words taken out before a unit is embedded
    # regex (lexicon names allowed): whole units of ordinary text this classifier over-reads ("X are here to
    # stay", "X were enslaved"): it leaves them to the rules, which still judge every word
    benign: str = ""
    # regex (lexicon names allowed): a short sentence after a benign one that mourns or condemns what it reports
    # ("X were enslaved. Terrible."): its verdict on the report, not read on with it as a comment that approves
    mourning: str = ""
    # regex (lexicon names allowed): phrases that name no harm ("kill the cron job"), not counted as anchors
    inert: str = ""
    # a unit naming a group and a harm word, scored again as if said of these groups (groupswap.py)
    group_swap: Mapping[str, Any] = field(default_factory=dict)
    # passages that reject or hold a quoted claim (relative to the rails directory; ``stance.py``), and the
    # probability of "rejects" at which a quote or reported claim counts as counter-speech; empty: none
    stance: str = ""
    stance_threshold: float = 0.8
    # studied corpora (relative to the rails directory) whose hateful texts are fitted as harmful beside the
    # examples (studied.py), each weighing this much against an example in the fit
    studied: tuple[str, ...] = ()
    studied_weight: float = 1.0
    # studied corpus -> its categories of legitimate look-alikes a unit about to be blocked is compared with
    # (contrasts.py), beside the examples' contrasts; how close the nearest must be, and how much closer than
    # the nearest harmful sentence
    contrasts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    contrast_similarity: float = 2.0  # above any cosine: off
    contrast_margin: float = 0.0

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None) -> SemanticConfig:
        data = dict(data or {})
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        known["anchors"] = dict(known.get("anchors") or {})
        known["group_swap"] = dict(known.get("group_swap") or {})
        known["studied"] = tuple(known.get("studied") or ())
        known["thresholds"] = {str(k): float(v) for k, v in (known.get("thresholds") or {}).items()}
        known["contrasts"] = {str(k): tuple(v or ()) for k, v in (known.get("contrasts") or {}).items()}
        for name in ("benign", "inert"):  # a list of alternatives, or one regex
            if isinstance(known.get(name), list):
                known[name] = "|".join(f"(?:{p})" for p in known[name])
        return cls(**known)
