"""The moderation settings as read from ``rails/config.yml``: one frozen record the tiers are built from.

The word lists are compiled here once (``patterns.compile_lexicon``), so every rule, sense and context
pattern that names ``{group}`` or ``{dehumanising}`` gets the same alternatives.

A family of rules with word lists of its own (violent extremism: attackers, attacks, slogans) may live in a
rails file of its own, named under ``category_files``: its lists join the lexicon (a name written in two
files is an error, not an override) and its rules follow the config's own, so one set of rules is judged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webapp.guard.moderation.lexicon import compile_lexicon, expand
from webapp.guard.moderation.patterns import CategoryRule
from webapp.guard.moderation.semanticconfig import SemanticConfig
from webapp.guard.moderation.senses import Senses
from webapp.guard.moderation.tunedconfig import TunedConfig
from webapp.guard.yamlfile import load_yaml
from webapp.resources import resource_dir


@dataclass(frozen=True)
class ModerationConfig:
    profanity_enabled: bool = True
    # alt-profanity-check scores mild words high ("what the hell" 0.97), so only near-certain abuse blocks.
    thresholds: Mapping[str, float] = field(default_factory=lambda: {"input": 0.99, "output": 0.99})
    profanity_reason: str = "abusive or profane language is not allowed here"
    untargeted_profanity: str = "allow"  # "block": any profanity blocks, not only swearing aimed at someone
    profanity_person: str = ""  # regex (lexicon names allowed): a person that swearing is aimed at
    # regex: swear words proper. A negated unit without one is left to the rules: the profanity model scores
    # "people are not stupid" 0.9998, it learnt the insult, not the "not".
    swear_words: str = ""
    categories: tuple[CategoryRule, ...] = ()
    lexicon: Mapping[str, str] = field(default_factory=dict)
    substitutions: Mapping[str, str] = field(default_factory=dict)
    context: Mapping[str, Any] = field(default_factory=dict)
    senses: Senses = field(default_factory=Senses)
    semantic: SemanticConfig = field(default_factory=lambda: SemanticConfig(enabled=False))
    tuned: TunedConfig = field(default_factory=TunedConfig)
    load_timeout_s: float = 60.0  # a check waits this long for the embedding model at start, then refuses
    # The languages the tiers read and what a unit in another gets ("block"/"allow"); the word lists that tell
    # them apart, under the rails directory ("": no language gate, for a config built by hand for one tier).
    languages: tuple[str, ...] = ("en",)
    other_languages: str = "block"
    language_words: str = ""
    language_reason: str = "the safety rails here can only read {readable}; {what} was in {language}"

    @classmethod
    def from_mapping(
        cls, data: Mapping[str, Any] | None, *, rails_dir: Path | None = None
    ) -> ModerationConfig:
        """``rails_dir``: where ``category_files`` are (None: the app's own rails directory)."""
        data = _with_category_files(data or {}, rails_dir)
        profanity = data.get("profanity", {}) or {}
        lexicon = compile_lexicon(data.get("lexicon", {}) or {})
        return cls(
            profanity_enabled=bool(profanity.get("enabled", True)),
            thresholds={
                "input": float(profanity.get("input_threshold", 0.99)),
                "output": float(profanity.get("output_threshold", 0.99)),
            },
            profanity_reason=str(profanity.get("reason", cls.profanity_reason)),
            untargeted_profanity=_choice(profanity.get("untargeted", "allow"), ("allow", "block")),
            profanity_person=str(profanity.get("person", "")),
            swear_words=str(profanity.get("swear_words", "")),
            categories=tuple(CategoryRule.from_mapping(c, lexicon) for c in data.get("categories", ()) or ()),
            lexicon=lexicon,
            substitutions={
                str(k): str(v)
                for k, v in {**(data.get("substitutions") or {}), **(data.get("idioms") or {})}.items()
            },
            context=data.get("context", {}) or {},
            senses=Senses.from_mapping(data.get("senses"), lambda pattern: expand(pattern, lexicon)),
            semantic=SemanticConfig.from_mapping(data.get("semantic") or {"enabled": False}),
            tuned=TunedConfig.from_mapping(data.get("tuned")),
            load_timeout_s=float(data.get("load_timeout_s", 60.0)),
            languages=tuple(str(c) for c in data.get("languages") or cls.languages),
            other_languages=_choice(data.get("other_languages", cls.other_languages), ("block", "allow")),
            language_words=str(data.get("language_words") or ""),
            language_reason=str(data.get("language_reason") or cls.language_reason),
        )

    @property
    def group(self) -> re.Pattern[str]:
        return re.compile(r"\b(?:" + self.lexicon["group"] + r")\b" if "group" in self.lexicon else "(?!)")


def _with_category_files(data: Mapping[str, Any], rails_dir: Path | None) -> Mapping[str, Any]:
    """The config with each file of ``category_files`` merged in: its lexicon beside the config's, its
    categories after them."""
    names = data.get("category_files") or ()
    if not names:
        return data
    lexicon = dict(data.get("lexicon") or {})
    categories = list(data.get("categories") or ())
    for name in names:
        path = (rails_dir or _app_rails_dir()) / str(name)
        part = load_yaml(path) or {}
        for key, words in (part.get("lexicon") or {}).items():
            if key in lexicon:
                raise ValueError(f"{path}: word list {{{key}}} is already in the moderation lexicon")
            lexicon[key] = words
        categories += list(part.get("categories") or ())
    return {**data, "lexicon": lexicon, "categories": categories}


def _app_rails_dir() -> Path:
    return resource_dir("rails")


def _choice(value: object, allowed: tuple[str, ...]) -> str:
    if str(value) not in allowed:
        raise ValueError(f"moderation setting must be one of {', '.join(allowed)}, not {value!r}")
    return str(value)
